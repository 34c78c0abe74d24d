class Leaf:
    def time_leaf(self):
        "leaf".upper()
