"""Errors raised by the engine. Each carries the source offset it refers to, if known."""


class CalcError(Exception):
    def __init__(self, message, position=None):
        super().__init__(message)
        self.message = message
        self.position = position

    def __str__(self):
        if self.position is None:
            return self.message
        return f"{self.message} (at offset {self.position})"


class TokenizeError(CalcError):
    pass


class ParseError(CalcError):
    pass


class EvalError(CalcError):
    pass
