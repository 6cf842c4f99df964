raise ImportError('needs numpy')
