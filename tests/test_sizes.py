"""Small units (docs/architecture.md): no function body over 80 lines and no
class over 250 lines in the package, read from its source."""
import ast

import pytest

from test_layers import MODULES

FUNCTION_LINES = 80
CLASS_LINES = 250


def _body_lines(node) -> int:
    """Lines of a function's body, its docstring left out."""
    body = node.body
    first = body[1] if len(body) > 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
        else body[0]
    return node.end_lineno - first.lineno + 1


def _oversized(modules=MODULES):
    for module, path in sorted(modules.items()):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _body_lines(node) > FUNCTION_LINES:
                yield f"{module}.{node.name}: a function body of {_body_lines(node)} lines"
            elif isinstance(node, ast.ClassDef) and node.end_lineno - node.lineno + 1 > CLASS_LINES:
                yield f"{module}.{node.name}: a class of {node.end_lineno - node.lineno + 1} lines"


def test_no_function_or_class_is_oversized():
    assert list(_oversized()) == []


@pytest.mark.parametrize("source, expected", [
    ("def f():\n    '''doc'''\n" + "    x = 1\n" * 81, 1),
    ("def f():\n    '''doc'''\n" + "    x = 1\n" * 80, 0),
    ("class C:\n" + "    x = 1\n" * 250, 1),
])
def test_the_size_rule_counts_what_it_says(tmp_path, source, expected):
    path = tmp_path / "m.py"
    path.write_text(source)
    assert len(list(_oversized({"m": path}))) == expected
