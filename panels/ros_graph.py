"""ROS 2 graph panel: the nodes of each domain that the station sees over rmw_zenoh, under
their robot (app.ros2.graph: the first namespace segment), with what each publishes and
subscribes to and the services it serves and calls, as ``ros2 node info`` shows them."""

from __future__ import annotations

from PySide6.QtWidgets import QHeaderView, QLabel, QTreeWidget, QTreeWidgetItem

from app.qt.panel_api import PanelHost
from app.ros2.definitions import AMENT_VARIABLE, FOLDERS_VARIABLE
from app.ros2.graph import RosNodeInfo
from app.station.frame import FrameBatch
from panels.base import PanelBase
from widgets.list_page import ListPage
from widgets.status_light import WARNING

HINT = ("No ROS 2 node seen. A ROS 2 robot appears here when it runs rmw_zenoh "
        "(RMW_IMPLEMENTATION=rmw_zenoh_cpp) and its zenoh router or session is reachable "
        "from this station's.")
SIDES = (("Publishers", "publishers"), ("Subscriptions", "subscriptions"),
         ("Services", "services"), ("Service clients", "clients"))
OPEN_DEPTH = 3  # domain, robot, node


class RosGraphPanel(PanelBase):
    panel_id = "ros2_graph"
    title = "ROS 2 graph"

    def __init__(self, host: PanelHost) -> None:
        super().__init__(host)
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["Name", "Type"])
        # names are whole, however deep they are opened; the types take the rest
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self._page = ListPage(self, self.tree, "Filter node, topic or type")
        self.filter, self.count, self.hint = self._page.search, self._page.count, self._page.hint
        self.hint.setText(HINT)
        self.filter.textChanged.connect(lambda _text: self._fill())
        # the robots' own message types read from .msg files; the robot names refused
        self.definitions = QLabel()
        self.definitions.setWordWrap(True)
        self.definitions.setVisible(False)
        layout = self.layout()
        assert layout is not None
        layout.addWidget(self.definitions)
        self._nodes: list[RosNodeInfo] | None = None
        self._definitions: tuple[list[str], list[str], tuple[str, ...]] = ([], [], ())

    def on_frame(self, batch: FrameBatch) -> None:
        if not batch.tables_changed and self._nodes is not None:
            return
        nodes = self.host.station.ros_nodes()
        if nodes != self._nodes:
            self._nodes = nodes
            self._fill()
        station = self.host.station
        definitions = (*station.ros_definitions(), station.ros_robot_names_refused())
        if definitions != self._definitions:
            self._definitions = definitions
            self._show_definitions(*definitions)

    def _show_definitions(self, custom: list[str], problems: list[str],
                          names_refused: tuple[str, ...]) -> None:
        lines = [f"Own message types read from .msg files ({FOLDERS_VARIABLE}, "
                 f"{AMENT_VARIABLE}): {', '.join(custom)}"] if custom else []
        problems = problems + list(names_refused)
        lines += [f"Refused: {problem}" for problem in problems]
        self.definitions.setText("\n".join(lines))
        self.definitions.setStyleSheet(f"color:{WARNING};" if problems else "")
        self.definitions.setVisible(bool(lines))

    def _fill(self) -> None:
        nodes = self._nodes or []
        text = self.filter.text().strip().lower()
        shown = [n for n in nodes if not text or _mentions(n, text)]
        before = _items(self.tree)
        known = {_path(item) for item in before}
        expanded = {_path(item) for item in before if item.isExpanded()}
        self.tree.clear()
        domains: dict[int, QTreeWidgetItem] = {}
        robots: dict[tuple[int, str], QTreeWidgetItem] = {}
        for node in shown:
            domain = domains.get(node.domain)
            if domain is None:
                domain = domains[node.domain] = QTreeWidgetItem(
                    self.tree, [f"Domain {node.domain}", ""])
            robot = robots.get((node.domain, node.robot_id))
            if robot is None:
                robot = robots[node.domain, node.robot_id] = QTreeWidgetItem(
                    domain, [node.robot_id, "robot"])
            item = QTreeWidgetItem(robot, [node.name, "node"])
            for label, side in SIDES:
                entries = getattr(node, side)
                if entries:
                    group = QTreeWidgetItem(item, [f"{label} ({len(entries)})", ""])
                    for name, type_name in entries:
                        QTreeWidgetItem(group, [name, type_name])
        for item in _items(self.tree):
            # a node comes open down to its lists; what the operator opened or closed stays so
            path = _path(item)
            item.setExpanded(bool(text) or (path in expanded if path in known
                                            else len(path) <= OPEN_DEPTH))
        count = len(nodes)
        self.count.setText(f"{count} node{'' if count == 1 else 's'}" if len(shown) == count
                           else f"{len(shown)} of {count} nodes")
        self._page.show_list(bool(nodes))


def _mentions(node: RosNodeInfo, text: str) -> bool:
    words = [node.name, node.robot_id] + [f"{name} {type_name}" for _, side in SIDES
                                          for name, type_name in getattr(node, side)]
    return any(text in word.lower() for word in words)


def _items(tree: QTreeWidget) -> list[QTreeWidgetItem]:
    found: list[QTreeWidgetItem] = []
    pending = [tree.invisibleRootItem()]
    while pending:
        parent = pending.pop()
        for index in range(parent.childCount()):
            child = parent.child(index)
            if child is not None:
                found.append(child)
                pending.append(child)
    return found


def _path(item: QTreeWidgetItem) -> tuple[str, ...]:
    path: list[str] = []
    current: QTreeWidgetItem | None = item
    while current is not None:
        path.append(current.text(0).split(" (", 1)[0])
        current = current.parent()
    return tuple(reversed(path))
