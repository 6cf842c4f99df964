# Image of the evalkit GitHub Action (runs.using: docker in action.yml).
#
# The base is pinned by digest, not only by tag, so a re-pushed tag cannot change
# what runs with the workflow's secrets. The digest is the multi-arch index of the
# official python:3.12-slim (3.12.14-slim-trixie) as pinned in several public,
# well-kept Dockerfiles (found through code search). Bump it with Renovate (its
# dockerfile manager follows ARG defaults used in FROM) or by hand:
#   docker buildx imagetools inspect python:3.12-slim
# The build arg lets the image tests substitute a locally built base
# (tests/action/conftest.py); GitHub's runner always uses the default.
ARG BASE_IMAGE=python:3.12-slim@sha256:78387bc3881b8273120a12ebe6c1ab22b018ccc2c9adf565ae1ac9b536e184ea
FROM ${BASE_IMAGE}

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# git: evalkit diffs the pull request to pick suites. The workspace is mounted from
# another uid, so git would refuse it ("dubious ownership") without safe.directory.
# Debian drops superseded package versions from its archive, so a pinned git
# version would break the build at the next security update; the base digest
# pins the distribution release instead.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends git \
    && rm -rf /var/lib/apt/lists/* \
    && git config --system --add safe.directory '*'

# Where pip looks for packages. The defaults are pip's own; the image tests pass the
# host's pip index configuration here, so the build reaches the registry the same
# way the host does. Build args are not kept in the image's environment, but they
# are visible in its history: never put credentials in them.
ARG PIP_INDEX_URL=https://pypi.org/simple
ARG PIP_EXTRA_INDEX_URL=""
ARG PIP_FIND_LINKS=""
ARG PIP_CERT=""

# Dependencies get their own layer, keyed on the lock file only, so a change to evalkit's
# code does not reinstall them. The lock (requirements-action.txt, written by .ci/lock from
# pyproject.toml) pins every package, direct and indirect, with its hashes: the image holds
# exactly what was reviewed, never whatever is newest on build day.
WORKDIR /opt/evalkit/src
COPY requirements-action.txt ./
RUN python3 -m venv /opt/evalkit/venv \
    && /opt/evalkit/venv/bin/pip install --require-hashes --no-deps --requirement requirements-action.txt

COPY pyproject.toml README.md ./
COPY evalkit ./evalkit
RUN /opt/evalkit/venv/bin/pip install --no-deps . \
    && rm -rf build ./*.egg-info

COPY entrypoint /entrypoint

# The runner mounts the repository here and makes it the working directory.
WORKDIR /github/workspace
ENTRYPOINT ["/entrypoint"]
