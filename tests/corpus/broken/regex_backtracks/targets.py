def aaa(i):
    return 'a' * 40 + '!'
