def echo(i):
    return 'hello'
