"""Logs meet the station: the tap that records what the station hears, a whole log's series
for a plot, and the incidents marked on a log's timeline. Above ``app.station`` (it consumes
the station) and ``app.record`` (pure MCAP, which knows nothing of the station)."""
