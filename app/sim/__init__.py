"""The simulated fleet: real zenoh participants that follow the wire contract."""
