"""Teleop: inputs mapped to commands under an arming state machine with a watchdog, sent on
a clock of their own through the robot's output adapter. Pure Python: no Qt, no pygame —
inputs arrive as plain values, so every rule is unit-testable and runs on the command line
as in the window."""
