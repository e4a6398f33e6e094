# pycapnp ships the schemas every capnp file may import (/capnp/c++.capnp, schema.capnp...)
# as data next to its modules; its version is read from the distribution's metadata.
from PyInstaller.utils.hooks import collect_data_files, copy_metadata

datas = collect_data_files("capnp", includes=["*.capnp"]) + copy_metadata("pycapnp")
