"""The wire schemas: one .capnp per family (autoware: one per package) plus transport."""
