import time

def hang(i):
    time.sleep(3600)
