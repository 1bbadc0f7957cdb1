"""Site learnings: the learnings root, domain matching, learn_context, re-reading (B178-B182, B186)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ego_browser import learning
from ego_browser.errors import InvalidArgument, SiteNotFound, SitePackInvalid
from ego_browser.learning import loader

REPO = Path(__file__).resolve().parent.parent.parent


def make_pack(root: Path, pack_id: str, *, domains=("shop.example",), name=None, notes=None, manifest=None, **extra):
    """Write a pack folder; ``notes`` maps relative paths to contents."""
    pack = root / pack_id
    pack.mkdir(parents=True, exist_ok=True)
    notes = {"notes/guide.md": f"# {pack_id}\nbuy things"} if notes is None else notes
    for rel, text in notes.items():
        (pack / rel).parent.mkdir(parents=True, exist_ok=True)
        (pack / rel).write_text(text)
    data = manifest if manifest is not None else {
        "id": pack_id,
        "name": name or pack_id.title(),
        "domains": list(domains),
        "notes": list(notes),
        **extra,
    }
    (pack / "manifest.json").write_text(data if isinstance(data, str) else json.dumps(data))
    return pack


@pytest.fixture
def root(tmp_path, monkeypatch):
    r = tmp_path / "learnings"
    r.mkdir()
    monkeypatch.setenv("EGO_BROWSER_LEARNINGS_DIR", str(r))
    monkeypatch.delenv("EGO_BROWSER_AGENT_WORKSPACE", raising=False)
    learning.reset()
    yield r
    learning.reset()


# -- the learnings root ----------------------------------------------------------------------


def test_root_precedence(tmp_path, monkeypatch):
    monkeypatch.delenv("EGO_BROWSER_LEARNINGS_DIR", raising=False)
    monkeypatch.delenv("EGO_BROWSER_AGENT_WORKSPACE", raising=False)
    bundled = learning.learnings_root()
    assert bundled == REPO / "skills" / "ego-browser" / "learnings"
    assert (bundled / "hackernews" / "manifest.json").is_file()

    monkeypatch.setenv("EGO_BROWSER_AGENT_WORKSPACE", str(tmp_path / "skill"))
    assert learning.learnings_root() == tmp_path / "skill" / "learnings"

    monkeypatch.setenv("EGO_BROWSER_LEARNINGS_DIR", str(tmp_path / "mine"))
    assert learning.learnings_root() == tmp_path / "mine"


async def test_agent_workspace_learnings_are_used(tmp_path, monkeypatch):
    monkeypatch.delenv("EGO_BROWSER_LEARNINGS_DIR", raising=False)
    make_pack(tmp_path / "skill" / "learnings", "shop")
    monkeypatch.setenv("EGO_BROWSER_AGENT_WORKSPACE", str(tmp_path / "skill"))
    assert [s["id"] for s in await learning.site_skills("https://shop.example/")] == ["shop"]
    # the bundled packs are not consulted any more
    assert await learning.site_skills("https://news.ycombinator.com/") == []


# -- matching (B178, B179) -------------------------------------------------------------------


async def test_b178_wildcard_matches_subdomains_not_the_bare_domain(root):
    make_pack(root, "shopsub", domains=["*.shop.example"])
    make_pack(root, "shopbare", domains=["shop.example"])

    got = await learning.site_skills("https://www.shop.example/cart")
    assert [s["id"] for s in got] == ["shopsub"]
    assert got[0] == {
        "id": "shopsub",
        "name": "Shopsub",
        "domains": ["*.shop.example"],
        "dir": str(root / "shopsub"),
    }
    assert [s["id"] for s in await learning.site_skills("https://a.b.c.shop.example/")] == ["shopsub"]
    assert [s["id"] for s in await learning.site_skills("https://shop.example/")] == ["shopbare"]
    # case, port and a trailing dot are ignored
    assert [s["id"] for s in await learning.site_skills("HTTPS://WWW.Shop.Example:8443/x")] == ["shopsub"]
    assert [s["id"] for s in await learning.site_skills("http://shop.example.:8080/")] == ["shopbare"]
    # a look-alike host is not a subdomain
    assert await learning.site_skills("https://evilshop.example/") == []
    assert await learning.site_skills("https://shop.example.evil.test/") == []


async def test_b179_several_packs_sorted_by_id_and_no_match(root):
    make_pack(root, "zeta", domains=["shop.example"])
    make_pack(root, "alpha", domains=["SHOP.example."])
    make_pack(root, "other", domains=["other.example"])
    assert [s["id"] for s in await learning.site_skills("https://shop.example/a")] == ["alpha", "zeta"]
    assert await learning.site_skills("https://nowhere.example/") == []
    assert await learning.site_skills("about:blank") == []


@pytest.mark.parametrize(
    "pattern, host, expected",
    [
        ("shop.example", "shop.example", True),
        ("shop.example", "www.shop.example", False),
        ("*.shop.example", "shop.example", False),
        ("*.shop.example", "x.shop.example", True),
        ("*.shop.example", "a.b.shop.example", True),
        ("*.shop.example", "xshop.example", False),
        ("Shop.Example.", "shop.example", True),
        ("shop.example", "shop.example:8080", True),
    ],
)
def test_host_matches(pattern, host, expected):
    assert loader.host_matches(pattern, host) is expected


@pytest.mark.parametrize(
    "url, host",
    [
        ("https://WWW.Shop.Example:8443/cart?x=1", "www.shop.example"),
        ("http://shop.example./", "shop.example"),
        ("shop.example/cart", "shop.example"),
        ("shop.example:8080", "shop.example"),
        ("about:blank", None),
        ("data:text/html,hi", None),
        ("", None),
    ],
)
def test_host_of(url, host):
    assert loader.host_of(url) == host


# -- learn_context (B180, B181) --------------------------------------------------------------


async def test_b180_learn_context_lists_sites_notes_and_tools(root):
    pack = make_pack(
        root,
        "shop",
        name="Example Shop",
        domains=["shop.example", "*.shop.example"],
        notes={"notes/checkout.md": "Checkout needs a login.\n", "notes/search.md": "Use ?q=.\n"},
        node_tools={
            "search": {
                "file": "tools/search.py",
                "callable": "search",
                "description": "Search the shop",
                "args": {"query": "str", "limit": {"type": "int", "required": False, "default": 5}},
                "returns": "list of products",
                "example": "await run_site_tool('shop', 'search', query='socks')",
            }
        },
        browser_tools={"read_cart": {"file": "browser-tools/read_cart.js", "description": "Read the cart", "args": {}}},
    )
    (pack / "tools").mkdir()
    (pack / "tools" / "search.py").write_text("def search(ctx, query, limit=5):\n    return []\n")
    (pack / "browser-tools").mkdir()
    (pack / "browser-tools" / "read_cart.js").write_text("return [];")

    ctx = await learning.learn_context("https://www.shop.example/cart")
    assert ctx["url"] == "https://www.shop.example/cart"
    assert ctx["sites"] == [{"id": "shop", "name": "Example Shop"}]
    assert ctx["knowledge"] == [
        {"site_id": "shop", "file": "notes/checkout.md", "content": "Checkout needs a login.\n"},
        {"site_id": "shop", "file": "notes/search.md", "content": "Use ?q=.\n"},
    ]
    assert ctx["tools"] == [
        {
            "site_id": "shop",
            "name": "search",
            "kind": "node",
            "description": "Search the shop",
            "args": {"query": "str", "limit": {"type": "int", "required": False, "default": 5}},
            "returns": "list of products",
            "example": "await run_site_tool('shop', 'search', query='socks')",
        },
        {
            "site_id": "shop",
            "name": "read_cart",
            "kind": "browser",
            "description": "Read the cart",
            "args": {},
            "returns": None,
            "example": None,
        },
    ]
    assert ctx["problems"] == []


async def test_learn_context_for_an_unmatched_url_is_empty(root):
    make_pack(root, "shop")
    ctx = await learning.learn_context("https://elsewhere.example/")
    assert ctx == {"url": "https://elsewhere.example/", "sites": [], "knowledge": [], "tools": [], "problems": []}


async def test_b181_broken_pack_is_skipped_and_described(root):
    make_pack(root, "good", domains=["shop.example"])
    make_pack(root, "badjson", manifest='{"id": "badjson", "name": ')
    make_pack(root, "camel", manifest={"id": "camel", "name": "C", "domains": ["shop.example"], "nodeTools": {}})
    make_pack(root, "wrongid", manifest={"id": "other", "name": "W", "domains": ["shop.example"]})

    skills = await learning.site_skills("https://shop.example/")
    assert [s["id"] for s in skills] == ["good"]

    ctx = await learning.learn_context("https://shop.example/")
    assert [s["id"] for s in ctx["sites"]] == ["good"]
    assert [k["site_id"] for k in ctx["knowledge"]] == ["good"]
    problems = ctx["problems"]
    assert any(p.startswith("badjson: manifest.json: not valid JSON") for p in problems), problems
    assert any(p.startswith("camel: nodeTools: unknown key") and "node_tools" in p for p in problems), problems
    assert any(p.startswith("wrongid: id: expected the folder name 'wrongid'") for p in problems), problems


async def test_b182_edits_apply_on_the_next_call(root):
    pack = make_pack(root, "shop", notes={"notes/a.md": "first"})
    assert (await learning.learn_context("https://shop.example/"))["knowledge"][0]["content"] == "first"
    (pack / "notes" / "a.md").write_text("second")
    assert (await learning.learn_context("https://shop.example/"))["knowledge"][0]["content"] == "second"

    manifest = json.loads((pack / "manifest.json").read_text())
    manifest["domains"] = ["shop2.example"]
    manifest["name"] = "Renamed"
    (pack / "manifest.json").write_text(json.dumps(manifest))
    assert await learning.site_skills("https://shop.example/") == []
    assert (await learning.site_skills("https://shop2.example/"))[0]["name"] == "Renamed"


# -- note paths (B186) -----------------------------------------------------------------------


async def test_b186_notes_leaving_the_pack_are_skipped_and_reported(root, tmp_path):
    secret = tmp_path / "secret.md"
    secret.write_text("SECRET")
    pack = make_pack(root, "shop", notes={"notes/ok.md": "fine"})
    (pack / "notes" / "link.md").symlink_to(secret)
    manifest = json.loads((pack / "manifest.json").read_text())
    manifest["notes"] = ["notes/ok.md", "../secret.md", str(secret), "notes/link.md", "notes/missing.md"]
    (pack / "manifest.json").write_text(json.dumps(manifest))

    ctx = await learning.learn_context("https://shop.example/")
    assert ctx["knowledge"] == [{"site_id": "shop", "file": "notes/ok.md", "content": "fine"}]
    assert all("SECRET" not in k["content"] for k in ctx["knowledge"])
    problems = ctx["problems"]
    assert len(problems) == 4, problems
    assert "'../secret.md'" in problems[0] and "leaves the pack" in problems[0]
    assert "absolute" in problems[1]
    assert "'notes/link.md'" in problems[2] and "leaves the pack" in problems[2]
    assert "file not found" in problems[3]
    assert all(p.startswith("shop: notes: ") for p in problems)


def test_a_symlink_inside_the_pack_is_allowed(root):
    pack = make_pack(root, "shop", notes={"notes/real.md": "real"})
    (pack / "notes" / "alias.md").symlink_to(pack / "notes" / "real.md")
    assert loader.path_problem(pack, "notes/alias.md") is None
    assert loader.path_problem(pack, "notes/../notes/real.md") is None


# -- manifest models -----------------------------------------------------------------------


def test_manifest_errors_name_pack_field_and_expectation(root):
    make_pack(
        root,
        "shop",
        manifest={
            "id": "shop",
            "name": "Shop",
            "domains": ["https://shop.example", "shop.example:8080", "shop.example/path"],
            "node_tools": {
                "search": {
                    "file": "tools/search.py",
                    "callable": "search",
                    "description": "d",
                    "args": {"query": "string?", "n": 3, "opt": {"type": "int", "requird": False}},
                }
            },
        },
    )
    with pytest.raises(SitePackInvalid) as info:
        loader.load_pack(root / "shop")
    err = info.value
    assert err.site_id == "shop"
    assert err.code == "EGO_SITE_PACK_INVALID"
    text = "\n".join(err.problems)
    assert "domains[0]: expected a host name without a scheme" in text
    assert "domains[1]: expected a host name without a port" in text
    assert "domains[2]: expected a host name without a path" in text
    assert "node_tools.search.args.query: expected a type name" in text
    assert "node_tools.search.args.n: expected a type name" in text
    assert "node_tools.search.args.opt.requird: unknown key" in text
    assert "'shop'" in str(err)


def test_both_argument_spellings_are_accepted(root):
    pack = make_pack(
        root,
        "shop",
        node_tools={
            "t": {
                "file": "tools/t.py",
                "callable": "t",
                "description": "d",
                "args": {"a": "str", "b": {"type": "int", "required": True}, "c": {"type": "bool", "default": False}},
            }
        },
    )
    loaded = loader.load_pack(pack)
    assert loaded.manifest.node_tools["t"].normalized_args() == {
        "a": {"type": "str", "required": True, "default": None, "description": None},
        "b": {"type": "int", "required": True, "default": None, "description": None},
        "c": {"type": "bool", "required": False, "default": False, "description": None},
    }


def test_unknown_site_id(root):
    make_pack(root, "shop")
    with pytest.raises(SiteNotFound) as info:
        loader.find_pack("nope")
    assert info.value.site_id == "nope"
    assert "shop" in str(info.value)  # the known packs are listed
    with pytest.raises(SiteNotFound):
        loader.find_pack("../learnings")


def test_import_does_not_load_pydantic():
    code = (
        "import sys, ego_browser, ego_browser.learning, ego_browser.learning.loader, ego_browser.learning.tools;"
        "print('pydantic' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# -- url resolution ------------------------------------------------------------------------


class UrlPage:
    def __init__(self, url):
        self._url = url

    async def url(self):
        return self._url


async def test_url_from_a_page_or_the_injected_resolver(root, monkeypatch):
    import ego_browser.client.round as client_round

    monkeypatch.setattr(client_round, "last_page", lambda: None)  # no page used by this round yet
    make_pack(root, "shop")
    assert [s["id"] for s in await learning.site_skills(page=UrlPage("https://shop.example/x"))] == ["shop"]
    with pytest.raises(InvalidArgument):
        await learning.site_skills()

    async def current():
        return "https://shop.example/current"

    learning.configure(current_url=current)
    assert [s["id"] for s in await learning.site_skills()] == ["shop"]
    ctx = await learning.learn_context()
    assert ctx["url"] == "https://shop.example/current"
    assert [s["id"] for s in ctx["sites"]] == ["shop"]
    learning.configure(current_url=lambda: "https://other.example/")  # a sync resolver works too
    assert await learning.site_skills() == []


async def test_url_must_be_a_string(root):
    with pytest.raises(InvalidArgument) as info:
        await learning.site_skills(42)
    assert info.value.option == "url"


def test_missing_root_gives_no_packs(tmp_path, monkeypatch):
    monkeypatch.setenv("EGO_BROWSER_LEARNINGS_DIR", str(tmp_path / "does-not-exist"))
    assert loader.load_packs() == ([], [])
    assert os.environ["EGO_BROWSER_LEARNINGS_DIR"].endswith("does-not-exist")


# -- property: the wildcard rule -------------------------------------------------------------

from hypothesis import given, strategies as st  # noqa: E402

_label = st.from_regex(r"[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?", fullmatch=True)
_host = st.lists(_label, min_size=1, max_size=4).map(".".join)


@given(base=_host, sub=_host, port=st.one_of(st.none(), st.integers(1, 65535)), upper=st.booleans())
def test_wildcard_rule_property(base, sub, port, upper):
    def url(host):
        host = host.upper() if upper else host
        return f"https://{host}{'' if port is None else f':{port}'}/path"

    bare, deeper = loader.host_of(url(base)), loader.host_of(url(f"{sub}.{base}"))
    assert bare == base and deeper == f"{sub}.{base}"
    assert loader.host_matches(f"*.{base}", deeper)
    assert not loader.host_matches(f"*.{base}", bare)
    assert loader.host_matches(base, bare)
    assert not loader.host_matches(base, deeper)
    assert not loader.host_matches(f"*.{base}", f"{sub}{base}")  # glued, not a subdomain


# -- a pack folder that is a symlink out of the root (issue 9, point 16) ---------------------


async def test_a_pack_folder_symlinked_out_of_the_root_is_refused(root, tmp_path):
    from ego_browser.learning.validate import validate_skills

    outside = tmp_path / "elsewhere"
    real = make_pack(outside, "shop", notes={"notes/secret.md": "SECRET NOTES"})
    (root / "shop").symlink_to(real, target_is_directory=True)

    assert await learning.site_skills("https://shop.example/") == []
    ctx = await learning.learn_context("https://shop.example/")
    assert ctx["knowledge"] == [] and ctx["sites"] == []
    assert any(p.startswith("shop: ") and "symlink out of the learnings root" in p for p in ctx["problems"])
    with pytest.raises(SitePackInvalid) as info:
        await learning.run_site_tool("shop", "anything")
    assert "symlink out of the learnings root" in info.value.message
    assert any("symlink out of the learnings root" in p for p in validate_skills(root))


async def test_a_manifest_symlinked_out_of_its_pack_is_refused(root, tmp_path):
    other = make_pack(tmp_path / "elsewhere", "shop")
    pack = root / "shop"
    pack.mkdir()
    (pack / "manifest.json").symlink_to(other / "manifest.json")
    assert await learning.site_skills("https://shop.example/") == []
    problems = (await learning.learn_context("https://shop.example/"))["problems"]
    assert any("manifest.json: path leaves the pack" in p for p in problems), problems
