"""Declarations: a page's network (``Page.requests``, ``expect_response``...) and ``Request``
(issue 33 §1). Loaded with ``spec_page`` (the Page members) and on its own for ``Request``."""

from __future__ import annotations

from .spec import OMIT, M, P, cls, prop

_MATCH = P("url_or_predicate", "matcher",
           doc="exact URL, glob (**, *, {a,b}), re.Pattern (searched) or a callable given the Request")
_WAIT_TIMEOUT = P("timeout", "ms>0", 30000)
_PART = P("part", ("response", "request"), "response", doc='"request": the body the page sent (post data)')
_BODY_TIMEOUT = P("timeout", "ms>0", 30000, doc="how long to wait for a response still loading")
_FETCH = """
async with page.expect_response("**/orders.csv") as info:
    await page.evaluate("fetch('/orders.csv').then(r => r.status)")
response = await info.value
"""

# -- Page ---------------------------------------------------------------------------------------

M("Page.requests", ["*", P("url", "matcher?", None, doc="only URLs matching (as expect_response)"),
                    P("resource_type", "str?", None, doc='"document", "script", "fetch", "xhr", "image" ...'),
                    P("limit", "int>0", 100, doc="the newest this many")],
  "list[Request]",
  "The page's recent requests, oldest first: method, URL, resource type, status, timing, sizes, the frame and the "
  "action that caused them; bodies on demand (await r.body()). The host keeps the newest 500 per page; bodies stay "
  "in Chromium while the page keeps its document, and one over 1 MiB comes through a file.",
  """
await page.goto("https://shop.example/search.html?q=kettle")
for r in await page.requests():
    print(r.method, r.status, r.resource_type, r.url, r.action)
doc = (await page.requests(resource_type="document"))[-1]
print(doc.sizes, doc.timing["duration_ms"] is not None, (await doc.text())[:15])
""", errors=("InvalidRoutePattern",))
M("Page.wait_for_response", [_MATCH, "*", _WAIT_TIMEOUT], "Request",
  "Wait for the next response (its headers) whose URL matches, counted from this call. As Playwright's: a str is "
  "a glob, a re.Pattern is searched, a callable gets each Request and returns a bool (it runs in this round).",
  """
response, _ = await asyncio.gather(
    page.wait_for_response(lambda r: r.url.endswith(".csv") and r.ok),
    page.evaluate("fetch('/orders.csv').then(r => r.status)"))
print(response.status)
""", errors=("EgoTimeout", "InvalidRoutePattern"))
M("Page.expect_response", [_MATCH, "*", _WAIT_TIMEOUT], "async context manager; await info.value",
  "Armed on entry; the block ends once a matching response came (EgoTimeout otherwise). info.value is the "
  "Request, its response included.",
  _FETCH + "print(response.status, response.headers['content-type'], (await response.text()).splitlines()[0])",
  call="asynccm", errors=("EgoTimeout", "InvalidRoutePattern"))
M("Page.wait_for_request", [_MATCH, "*", _WAIT_TIMEOUT], "Request",
  "Wait for the next request whose URL matches, counted from this call (as wait_for_response, at request time).",
  """
request, _ = await asyncio.gather(
    page.wait_for_request("**/orders.csv"),
    page.evaluate("fetch('/orders.csv', {method: 'POST', body: 'q=1'}).then(r => r.status)"))
print(request.method, await request.text("request"))
""", errors=("EgoTimeout", "InvalidRoutePattern"))
M("Page.expect_request", [_MATCH, "*", _WAIT_TIMEOUT], "async context manager; await info.value",
  "Armed on entry; the block ends once a matching request was sent. info.value is the Request.",
  """
async with page.expect_request(re.compile(r"orders\\.csv$")) as info:
    await page.evaluate("fetch('/orders.csv').then(r => r.status)")
print((await info.value).method)
""", call="asynccm", errors=("EgoTimeout", "InvalidRoutePattern"))

# -- routes (a page's and a space's) ----------------------------------------------------------

_ROUTE_URL = P("url", "text|re", doc="glob (**, *, {a,b}; a str without them is the exact URL) or re.Pattern")
_ROUTE = [_ROUTE_URL, P("handler", "any", None, doc="a function (route) or (route, request), may be async: it "
                                                   "answers with route.fulfill/abort/continue_/fallback; lives while "
                                                   "this round does"), "*",
          P("fulfill", "dict?", None, doc="answer it: {status=200, headers, body (str or bytes) | json | path (absolute), "
                                         "content_type}"),
          P("abort", "str?", None, doc='fail it with an error code: "failed", "aborted", "blockedbyclient", '
                                      '"connectionrefused", "timedout", "accessdenied", "namenotresolved" ...'),
          P("continue_", "dict?", None, doc="send it on changed: {url, method, headers, post_data}"),
          P("times", "int>0?", None, doc="remove the route after this many requests")]
_ROUTE_DETAILS = ("Declarative (fulfill=, abort=, continue_=): the host applies the route (CDP Fetch) until "
                  "unroute(), across rounds (not across a host restart). With a handler: the round runs it on each "
                  "request (a request it does not answer continues); the route ends with the round. The newest matching route wins; a page's routes come before its space's. Errors: "
                  "InvalidRoutePattern for a glob that does not compile, BodyTooLarge for a body over 32 MiB, "
                  "InvalidArgument for an unknown abort code or key.")
M("Page.route", _ROUTE, "int",
  "Route this page's matching requests: fulfil, abort or continue them changed. Returns the route's id.",
  """
await page.route("**/orders.csv", fulfill={"body": "id;total", "content_type": "text/csv"})
print(await page.evaluate("fetch('/orders.csv').then(r => r.text())"))
await page.route(re.compile(r"/ads/"), abort="blockedbyclient")
await page.unroute("**/orders.csv")
await page.unroute()
""", errors=("InvalidRoutePattern", "BodyTooLarge", "InvalidArgument"), details=_ROUTE_DETAILS)
M("Page.unroute", [P("url", "text|re?", None, doc="the matcher given to route(); None: every route of the page")],
  "int", "Remove this page's routes of that matcher; returns how many.", "print(await page.unroute())")
M("TaskSpace.route", _ROUTE, "int",
  "Route the matching requests of every page of the space, those it opens later included (as Page.route).",
  """
await task.route("**/orders.csv", continue_={"headers": {"X-Agent": "ego"}})
await task.unroute("**/orders.csv")
""", errors=("InvalidRoutePattern", "BodyTooLarge", "InvalidArgument"), details=_ROUTE_DETAILS)
M("TaskSpace.unroute", [P("url", "text|re?", None, doc="the matcher given to route(); None: every route of the space")],
  "int", "Remove the space's routes of that matcher; returns how many.", "print(await task.unroute())")

M("TaskSpace.record_har", [P("path", "abspath", doc="the HAR file to write (its folder must exist)"), "*",
                          P("content", ("embed", "attach", "omit"), "embed",
                            doc="bodies in the HAR, in files beside it (content._file), or none"),
                          P("url_filter", "text|re?", None, doc="only URLs matching this glob or re.Pattern")],
  "None",
  "Record every request of the space's pages (those it opens later too) until task.stop_har() or task.finish(); "
  "the file is HAR 1.2, written atomically when the recording stops, and loads in DevTools and in Playwright's "
  "route_from_har. A request that failed is listed with status -1 and its _failureText. At most 5000 entries "
  "(the oldest go).",
  """
import os, tempfile
har = os.path.join(tempfile.mkdtemp(), "shop.har")
await task.record_har(har, url_filter="**/*.html")
await page.goto("https://shop.example/search.html?q=kettle")
print(await task.stop_har() == har, os.path.getsize(har) > 0)
""", errors=("HarUnwritable", "InvalidState", "InvalidRoutePattern"))
M("TaskSpace.stop_har", [], "str | None", "Stop the space's HAR recording and write the file; its path (None if "
  "none was recording). HarUnwritable if the file cannot be written (a previous file stays) or if attached bodies "
  "found no room (the HAR is written, their entries say so in content.comment).", "print(await task.stop_har())", errors=("HarUnwritable",))

# -- emulation per space ------------------------------------------------------------------------

M("TaskSpace.emulate", ["*", P("offline", "bool?", None, doc="True: every request fails as offline"),
                        P("network", "str?", None, doc='throttling preset: "slow3g", "fast3g", "fast4g", "none"'),
                        P("extra_headers", "headers?", None, doc="sent with every request (replaces the previous set)"),
                        P("user_agent", "str?", None),
                        P("geolocation", "dict?", None,
                          doc="{latitude, longitude, accuracy?}; granted without a prompt in an isolated space"),
                        P("locale", "str?", None, doc='e.g. "de-DE": navigator.language, Intl and Accept-Language'),
                        P("timezone", "str?", None, doc='an IANA id, e.g. "Asia/Tokyo"'),
                        P("device", "str?", None, doc='"iPhone 13", "iPhone SE", "Pixel 7", "iPad Mini", '
                                                      '"Desktop 1920": viewport, scale, touch and user agent')],
  "dict",
  "Emulate for every page of the space, now and the pages it opens later; what is not given (None) stays as set "
  "before. Returns the space's settings.",
  """
print(await task.emulate(locale="de-DE", timezone="Europe/Berlin", extra_headers={"X-Agent": "ego"}))
print(await page.evaluate("Intl.DateTimeFormat().resolvedOptions().timeZone"))
await task.emulate(timezone="UTC", locale="en-US", extra_headers={})
""", errors=("InvalidArgument",))
M("TaskSpace.set_offline", [P("offline", "bool")], "None",
  "Take every page of the space offline (True) or back online (False); as emulate(offline=...).",
  """
await task.set_offline(True)
print(await page.evaluate("navigator.onLine"))
await task.set_offline(False)
""")

# -- Route (a handler route's paused request) -------------------------------------------------

_HANDLER = """
async def handler(route):
    if route.request["method"] == "POST":
        await route.abort("blockedbyclient")
    else:
        await route.fulfill(json={"mocked": True})

await page.route("**/orders.csv", handler)
print(await page.evaluate("fetch('/orders.csv').then(r => r.json())"))
await page.unroute("**/orders.csv")
"""
cls("Route", "A request paused on a route whose handler runs in this round (page.route(url, handler)): answer it "
    "once with fulfill, abort, continue_ or fallback.", _HANDLER)
prop("Route.request", "{url, method, headers, post_data, resource_type, frame_id}", "The paused request.", "")
prop("Route.handled", "bool", "True once it was answered.", "")
M("Route.fulfill", ["*", P("status", "int", 200), P("headers", "headers?", None), P("body", "any", None,
                                                                                     doc="str or bytes"),
                    P("json", "json", OMIT), P("path", "path?", None), P("content_type", "str?", None)],
  "None", "Answer with this response (as a declarative fulfill=).", "", errors=("BodyTooLarge", "InvalidState"))
M("Route.abort", [P("error_code", "str", "failed")], "None", "Fail the request with this error code.", "",
  errors=("InvalidArgument", "InvalidState"))
M("Route.continue_", ["*", P("url", "str?", None), P("method", "str?", None), P("headers", "headers?", None),
                      P("post_data", "str?", None)], "None", "Send it on, changed as given.", "",
  errors=("InvalidState",))
M("Route.fallback", [], "None", "Send it on unchanged.", "", errors=("InvalidState",))

# -- Request ------------------------------------------------------------------------------------

cls("Request", "One request of a page (from page.requests(), expect_response(), expect_request()) and, once it "
    "came, its response. Fields are as they were when it was listed; the bodies are read on demand.",
    _FETCH + "print(response)")
prop("Request.id", "int", "Its number in the page's log (a redirect's next hop is a new number).", "")
prop("Request.url", "str", "The URL requested.", "")
prop("Request.method", "str", '"GET", "POST" ...', "")
prop("Request.resource_type", "str", '"document", "stylesheet", "script", "image", "fetch", "xhr" ... (lower case).',
     "")
prop("Request.status", "int | None", "The response's HTTP status; None before the response (or if it failed).", "")
prop("Request.status_text", "str | None", "The response's status text.", "")
prop("Request.ok", "bool", "True for a 2xx status.", "")
prop("Request.headers", "dict[str, str]", "The response headers (lower-case names; empty before the response).", "")
prop("Request.request_headers", "dict[str, str]", "The headers the page sent (lower-case names).", "")
prop("Request.mime_type", "str | None", "The response's MIME type.", "")
prop("Request.state", "str", '"pending", "finished" or "failed".', "")
prop("Request.failure", "str | None", 'Why it failed ("net::ERR_FAILED" ...), else None.', "")
prop("Request.from_cache", "bool", "Served from the disk cache, a prefetch or a service worker.", "")
prop("Request.redirected_from", "int | None", "The id of the hop that redirected here.", "")
prop("Request.frame", "{id, url, main}", "The frame that made it (main: the page's top frame).", "")
prop("Request.action", "{id, name} | None",
     'The action that started it ({"id": 3, "name": "page.click"}: one id per action of the page); None if none.', "")
prop("Request.timing", "{started, response_ms, duration_ms}",
     "started: wall-clock seconds; response_ms: until the response headers; duration_ms: until it finished.", "")
prop("Request.sizes", "{transfer, body, headers}", "Bytes on the wire: all of it, the body part, the headers.", "")
M("Request.to_dict", [], "dict", "Every field as a plain dict (JSON-ready).", "", call="sync")
M("Request.body", [_PART, "*", _BODY_TIMEOUT], "bytes",
  "The response body (part=\"request\": the request's post data; b\"\" if none). Waits for a response still "
  "loading; BodyUnavailable if Chromium no longer holds it (read bodies soon, before the page navigates away).",
  _FETCH + "print(len(await response.body()))", errors=("BodyUnavailable",))
M("Request.text", [_PART, "*", _BODY_TIMEOUT], "str", "The body decoded as UTF-8.",
  _FETCH + "print((await response.text())[:20])", errors=("BodyUnavailable",))
M("Request.json", [_PART, "*", _BODY_TIMEOUT], "JSON value", "The body parsed as JSON.",
  "", errors=("BodyUnavailable", "ValueError"))

__all__: list[str] = []
