from evalkit import Check, register_check

@register_check
class Mine(Check):
    type = 'contains'
    def evaluate(self, ctx):
        return True
