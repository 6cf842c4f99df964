class Evil:
    def __reduce__(self):  # never called back in evalkit's process
        return (exit, (0,))


def evil(i):
    return {"answer": "hello", "evil": Evil()}
