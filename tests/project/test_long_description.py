"""The long description PyPI shows (``pypi_readme.py``, which setup.py runs): README.md with
every relative image and link rewritten, since PyPI resolves none.

Checked on today's README.md, whatever it says, and on a sample of every form the rewrite
handles. ``twine check --strict`` on the built distributions is in tests/project/test_package.py (slow).
"""

from __future__ import annotations

import importlib.util
import re

import pytest

from markdown_links import relative_targets
from paths import ROOT

SAMPLE = """\
# Title

![A screenshot](docs/img/viewer.png)

See [the spec](docs/spec.md "the spec page"), [the site](https://example.org/x), [below](#usage)
and [![a badge](badge.svg)](docs/ci.md). Mail [us](mailto:a@example.org).
A [reference link][spec] and an ![image by reference][shot], and [an absolute one][site].
<img src="docs/img/sample.svg" alt="sample"> and <a href="CHANGELOG.md">the changes</a>.
In code, `[not a link](docs/x.md)` stays. A [link whose text
wraps](docs/wrapped.md) onto the next line, and ![an image
too](docs/img/wrapped.png).

```markdown
[kept as written](docs/spec.md) ![kept](docs/img/viewer.png)
```

[spec]: docs/spec.md
[shot]: <docs/img/ramp.svg>
[site]: https://example.org/
"""


@pytest.fixture(scope="module")
def pypi_readme():
    """pypi_readme.py, loaded from the source tree as setup.py runs it (it is not a module of
    the package)."""
    path = ROOT / "pypi_readme.py"
    if not path.is_file():
        pytest.skip("reads the source tree's pypi_readme.py, which is not here")
    spec = importlib.util.spec_from_file_location("pypi_readme", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_without_a_repository_url_relative_images_go_and_links_become_text(pypi_readme):
    out = pypi_readme.long_description(SAMPLE, None, "v1.0")
    assert relative_targets(SAMPLE) and relative_targets(out) == []
    assert "A screenshot" not in out and "a badge" not in out and "sample.svg" not in out
    assert "image by reference" not in out and "ramp.svg" not in out
    assert "See the spec, [the site](https://example.org/x), [below](#usage)\n" in out
    assert "[us](mailto:a@example.org)" in out
    assert "A reference link and an , and [an absolute one][site]." in out
    assert " and the changes.\n" in out
    assert "`[not a link](docs/x.md)` stays" in out
    assert "A link whose text\nwraps onto the next line, and .\n" in out
    assert "[kept as written](docs/spec.md) ![kept](docs/img/viewer.png)\n" in out
    assert "[site]: https://example.org/" in out and "[spec]:" not in out
    # The line that held only the screenshot is gone; the heading and its blank line stay.
    assert out.startswith("# Title\n\n\nSee ")


def test_with_a_repository_url_relative_targets_point_into_it_at_the_release(pypi_readme):
    home = "https://github.com/studio/llkgen"
    out = pypi_readme.long_description(SAMPLE, home, "v1.0")
    assert relative_targets(out) == []
    raw, blob = "https://raw.githubusercontent.com/studio/llkgen/v1.0", f"{home}/blob/v1.0"
    assert f"![A screenshot]({raw}/docs/img/viewer.png)" in out
    assert f'[the spec]({blob}/docs/spec.md "the spec page")' in out
    assert f"[![a badge]({raw}/badge.svg)]({blob}/docs/ci.md)" in out
    assert f'<img src="{raw}/docs/img/sample.svg"' in out and f'<a href="{blob}/CHANGELOG.md">' in out
    assert f"[spec]: {blob}/docs/spec.md" in out and "[reference link][spec]" in out
    assert "[kept as written](docs/spec.md)" in out and "`[not a link](docs/x.md)`" in out
    assert f"[link whose text\nwraps]({blob}/docs/wrapped.md)" in out
    assert f"![an image\ntoo]({raw}/docs/img/wrapped.png)" in out
    # Elsewhere than GitHub: the path under the URL.
    other = pypi_readme.long_description("[a](docs/a.md)\n", "https://git.example.org/llkgen", "v1.0")
    assert other == "[a](https://git.example.org/llkgen/docs/a.md)\n"


def test_the_repository_url_comes_from_project_urls(pypi_readme):
    home = pypi_readme.repository_home
    assert home({}) is None
    assert home({"urls": {"Documentation": "https://docs.example.org"}}) is None
    assert home({"urls": {"Homepage": "https://example.org/", "Source Code": "https://github.com/a/b"}}) == \
        "https://github.com/a/b"
    assert home({"urls": {"homepage": "https://example.org/"}}) == "https://example.org"


def test_readme_has_no_relative_target_left_for_pypi(pypi_readme):
    """Today's README.md, as setup.py hands it over: no relative image or link left (with this
    pyproject.toml's [project.urls], if any), and its prose and code otherwise unchanged."""
    args = pypi_readme.readme(ROOT)
    out = args["long_description"]
    assert args["long_description_content_type"] == "text/markdown"
    assert relative_targets(out) == []
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert re.findall(r"^```.*$", out, re.M) == re.findall(r"^```.*$", readme, re.M)
    assert out.splitlines()[0] == readme.splitlines()[0]
