def load_model(path): raise NotImplementedError
