def echo(i)
    return 'x'
