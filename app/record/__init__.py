"""Recording and reading MCAP logs of the bus (Qt-free): the format mapping, the recorder,
the black box, the reader and the text of ``fieldstation info``."""
