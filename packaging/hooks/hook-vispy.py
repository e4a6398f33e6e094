# vispy reads its shaders (glsl/), fonts and colormap data from files next to its modules,
# and imports its Qt backend by name at run time, which PyInstaller cannot see.
from PyInstaller.utils.hooks import collect_data_files

datas = collect_data_files("vispy", excludes=["**/tests/**"])
hiddenimports = ["vispy.app.backends._pyside6", "vispy.app.backends._qt"]
