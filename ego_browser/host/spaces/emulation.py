"""Per-space emulation (``task.emulate``, ``task.set_offline``): network conditions, extra
headers, user agent, locale, timezone, geolocation and a device, applied to the space's open
pages now and to the pages it opens later (``space_routes.SpaceRoutes.on_driver``).

Each setting is a CDP override on the page's session (``Network.emulateNetworkConditions``,
``Network.setExtraHTTPHeaders``, ``Emulation.setUserAgentOverride`` / ``setLocaleOverride`` /
``setTimezoneOverride`` / ``setGeolocationOverride`` / ``setDeviceMetricsOverride`` /
``setTouchEmulationEnabled``). The network presets are Chrome DevTools' throttling profiles.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...errors import CdpError, InvalidArgument

if TYPE_CHECKING:
    from ...driver.page import PageDriver

__all__ = ["NETWORK_PRESETS", "DEVICES", "check", "apply"]

#: name -> (latency ms, download bytes/s, upload bytes/s); -1: no limit (DevTools' profiles)
NETWORK_PRESETS: dict[str, tuple[float, float, float]] = {
    "none": (0, -1, -1),
    "slow3g": (2000, 50_000, 50_000),
    "fast3g": (562.5, 180_000, 84_375),
    "fast4g": (165, 1_012_500, 168_750),
}
_IPHONE_UA = ("Mozilla/5.0 (iPhone; CPU iPhone OS 16_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
              "Version/16.0 Mobile/15E148 Safari/604.1")
_ANDROID_UA = ("Mozilla/5.0 (Linux; Android 13; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) "
               "Chrome/120.0.0.0 Mobile Safari/537.36")
#: name -> (width, height, device scale factor, mobile, user agent)
DEVICES: dict[str, tuple[int, int, float, bool, str]] = {
    "iPhone 13": (390, 844, 3, True, _IPHONE_UA),
    "iPhone SE": (375, 667, 2, True, _IPHONE_UA),
    "Pixel 7": (412, 915, 2.625, True, _ANDROID_UA),
    "iPad Mini": (768, 1024, 2, True, _IPHONE_UA.replace("iPhone; CPU iPhone OS", "iPad; CPU OS")),
    "Desktop 1920": (1920, 1080, 1, False, ""),
}


def _bad(api: str, option: str, message: str, expected: str) -> InvalidArgument:
    return InvalidArgument(f"{api}: {message}", api=api, option=option, expected=expected)


def check(api: str, settings: dict[str, Any]) -> dict[str, Any]:
    """The settings given (None: unchanged), checked."""
    out = {k: v for k, v in settings.items() if v is not None}
    network = out.get("network")
    if network is not None and network not in NETWORK_PRESETS:
        raise _bad(api, "network", f"network must be one of {', '.join(NETWORK_PRESETS)} (got {network!r})",
                   "a preset name")
    device = out.get("device")
    if device is not None and device not in DEVICES:
        raise _bad(api, "device", f"device must be one of {', '.join(DEVICES)} (got {device!r})", "a device name")
    geo = out.get("geolocation")
    if geo is not None:
        ok = isinstance(geo, dict) and set(geo) <= {"latitude", "longitude", "accuracy"} and all(
            isinstance(geo.get(k), (int, float)) and not isinstance(geo.get(k), bool) for k in ("latitude", "longitude"))
        if not ok or not (-90 <= geo["latitude"] <= 90 and -180 <= geo["longitude"] <= 180):
            raise _bad(api, "geolocation", "geolocation must be {latitude: -90..90, longitude: -180..180, accuracy?}",
                       "{latitude, longitude, accuracy?}")
    return out


async def apply(driver: PageDriver, settings: dict[str, Any], *, api: str = "task.emulate") -> None:
    """Send the overrides of ``settings`` (a space's, merged) to one page."""
    send = driver.session.send
    try:
        if "offline" in settings or "network" in settings:
            latency, down, up = NETWORK_PRESETS[settings.get("network") or "none"]
            await send("Network.emulateNetworkConditions", {
                "offline": bool(settings.get("offline")), "latency": latency, "downloadThroughput": down,
                "uploadThroughput": up}, timeout=5.0)
        if "extra_headers" in settings:
            await send("Network.setExtraHTTPHeaders", {"headers": settings["extra_headers"]}, timeout=5.0)
        device = DEVICES.get(settings.get("device") or "")
        if device is not None:
            width, height, scale, mobile, _ua = device
            await send("Emulation.setDeviceMetricsOverride", {"width": width, "height": height,
                                                               "deviceScaleFactor": scale, "mobile": mobile}, timeout=5.0)
            await send("Emulation.setTouchEmulationEnabled", {"enabled": mobile, "maxTouchPoints": 5 if mobile else 1},
                       timeout=5.0)
        user_agent = settings.get("user_agent") or (device[4] if device is not None else None)
        locale = settings.get("locale")
        if user_agent or locale:
            if not user_agent:
                version = await driver.conn.send("Browser.getVersion", timeout=5.0)
                user_agent = version.get("userAgent", "")
            params = {"userAgent": user_agent}
            if locale:
                params["acceptLanguage"] = locale
            await send("Emulation.setUserAgentOverride", params, timeout=5.0)
        if locale:
            await send("Emulation.setLocaleOverride", {"locale": locale}, timeout=5.0)
        if settings.get("timezone"):
            await send("Emulation.setTimezoneOverride", {"timezoneId": settings["timezone"]}, timeout=5.0)
        geo = settings.get("geolocation")
        if geo is not None:
            if driver.context_id:
                # an isolated space's own context: no prompt (the shared profile's is the person's to grant)
                await driver.conn.send("Browser.grantPermissions", {
                    "permissions": ["geolocation"], "browserContextId": driver.context_id}, timeout=5.0)
            await send("Emulation.setGeolocationOverride", {"latitude": geo["latitude"], "longitude": geo["longitude"],
                                                            "accuracy": geo.get("accuracy", 0)}, timeout=5.0)
    except CdpError as exc:
        if "timezone" in (exc.message or "").lower():
            raise _bad(api, "timezone", f"unknown timezone {settings.get('timezone')!r}", "an IANA id such as "
                       "'Europe/Paris'") from None
        if "locale" in (exc.message or "").lower():
            raise _bad(api, "locale", f"unknown locale {settings.get('locale')!r}", "a BCP 47 tag such as 'de-DE'") \
                from None
        raise
