"""No import circle inside the apps that are cut into layers (docs/architecture.md): a module
imported lazily inside a function counts, so a circle cannot hide behind one."""

import grimp
import pytest


def circles(package: str) -> list[list[str]]:
    """The package's strongly connected groups of modules, those of more than one module."""
    graph = grimp.build_graph(package, cache_dir=None)  # the files as they are now
    imports = {
        module: sorted(graph.find_modules_directly_imported_by(module)) for module in graph.modules
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for imported in imports[module]:
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return found


@pytest.mark.parametrize("package", ["social", "notifications"])
def test_no_import_circle_in_the_app(package):
    assert circles(package) == []
