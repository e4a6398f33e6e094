# zenoh's native module needs no help; zenoh.ext/zenoh.shm are imported lazily by attribute
# access, and the About box reads the distribution's version.
from PyInstaller.utils.hooks import copy_metadata

datas = copy_metadata("eclipse-zenoh")
hiddenimports = ["zenoh.ext", "zenoh.shm"]
