"""Family structs -> plain numpy arrays and display models (Qt-free)."""
