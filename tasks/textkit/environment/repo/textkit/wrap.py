"""Line wrapping and truncation."""


def wrap(text, width, break_long_words=True):
    """Greedy word wrap of ``text`` into lines of at most ``width`` characters.

    Whitespace runs, newlines included, separate words. A word longer than ``width`` is split
    into ``width``-sized pieces when ``break_long_words`` is true, else it gets a line of its
    own. Returns the list of lines (empty for blank text).
    """
    if width < 1:
        raise ValueError("width must be at least 1")
    lines = []
    current = ""
    for word in text.split():
        pieces = [word]
        if break_long_words and len(word) > width:
            pieces = [word[i : i + width] for i in range(0, len(word), width)]
        for piece in pieces:
            if not current:
                current = piece
            elif len(current) + 1 + len(piece) <= width:
                current += " " + piece
            else:
                lines.append(current)
                current = piece
    if current:
        lines.append(current)
    return lines


def truncate(text, length, ellipsis="…"):
    """Shorten ``text`` to at most ``length`` characters, ending with ``ellipsis`` if cut.

    The cut is made at the last space that still leaves room for the ellipsis, or inside
    the word when there is none; trailing spaces before the ellipsis are dropped.
    """
    if length < len(ellipsis):
        raise ValueError("length is shorter than the ellipsis")
    if len(text) <= length:
        return text
    room = length - len(ellipsis)
    cut = text[:room]
    space = cut.rfind(" ")
    if space > 0 and text[room] != " ":
        cut = cut[:space]
    return cut.rstrip() + ellipsis
