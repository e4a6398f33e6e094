"""Recording and playback: MCAP logs of the bus, and foreign MCAP files read as our samples."""
