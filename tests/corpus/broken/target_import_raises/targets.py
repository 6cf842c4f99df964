raise RuntimeError('no config')
