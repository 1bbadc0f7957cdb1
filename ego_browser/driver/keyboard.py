"""Trusted keyboard input: the US layout, key-string parsing and ``Input.dispatchKeyEvent``.

Key names follow Playwright (API.md §6): characters (``a``, ``A``, ``+``), named keys (``Enter``,
``ArrowLeft``…; case-insensitive), codes (``KeyA``, ``Digit1``, ``Numpad1``; keeping code and
location) and ``ControlOrMeta`` (Control on Linux/Windows, Meta on macOS). Chords join with
``+``; a lone ``+`` is the plus key.

Editing shortcuts: Chromium maps ``Ctrl+A/C/V/X/Z…`` to editor commands itself on Linux, but only
when the key event reaches Blink's key-binding table; to make them deterministic in headless
mode we pass the editor command explicitly in ``commands`` (as Playwright does on macOS) and
Blink then skips its own binding for that keydown (no double execution).

The :class:`Keyboard` is transport-agnostic: it is given ``send(method, params)`` (normally
``Session.send`` of the *top* page session; the host may wrap it to race JS dialogs).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

from .. import jsbundle
from ..errors import EgoError, InvalidArgument
from .input_pair import send_pair

__all__ = [
    "KeyDescription",
    "Keyboard",
    "KEY_ALIASES",
    "MODIFIER_BITS",
    "describe_key",
    "modifiers_mask",
    "split_chord",
]

Send = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]

KEYPAD_LOCATION = 3

#: code -> (keyCode, key, shifted key, shiftKeyCode, location, text, keyCodeWithoutLocation)
_LAYOUT: dict[str, dict[str, Any]] = {
    "Escape": {"keyCode": 27, "key": "Escape"},
    **{f"F{i}": {"keyCode": 111 + i, "key": f"F{i}"} for i in range(1, 13)},
    "Backquote": {"keyCode": 192, "shiftKey": "~", "key": "`"},
    **{f"Digit{d}": {"keyCode": 48 + d, "shiftKey": ")!@#$%^&*("[d], "key": str(d)} for d in range(10)},
    "Minus": {"keyCode": 189, "shiftKey": "_", "key": "-"},
    "Equal": {"keyCode": 187, "shiftKey": "+", "key": "="},
    "Backslash": {"keyCode": 220, "shiftKey": "|", "key": "\\"},
    "Backspace": {"keyCode": 8, "key": "Backspace"},
    "Tab": {"keyCode": 9, "key": "Tab"},
    **{f"Key{c}": {"keyCode": ord(c), "shiftKey": c, "key": c.lower()} for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"},
    "BracketLeft": {"keyCode": 219, "shiftKey": "{", "key": "["},
    "BracketRight": {"keyCode": 221, "shiftKey": "}", "key": "]"},
    "CapsLock": {"keyCode": 20, "key": "CapsLock"},
    "Semicolon": {"keyCode": 186, "shiftKey": ":", "key": ";"},
    "Quote": {"keyCode": 222, "shiftKey": '"', "key": "'"},
    "Enter": {"keyCode": 13, "key": "Enter", "text": "\r"},
    "ShiftLeft": {"keyCode": 160, "keyCodeWithoutLocation": 16, "key": "Shift", "location": 1},
    "Comma": {"keyCode": 188, "shiftKey": "<", "key": ","},
    "Period": {"keyCode": 190, "shiftKey": ">", "key": "."},
    "Slash": {"keyCode": 191, "shiftKey": "?", "key": "/"},
    "ShiftRight": {"keyCode": 161, "keyCodeWithoutLocation": 16, "key": "Shift", "location": 2},
    "ControlLeft": {"keyCode": 162, "keyCodeWithoutLocation": 17, "key": "Control", "location": 1},
    "MetaLeft": {"keyCode": 91, "key": "Meta", "location": 1},
    "AltLeft": {"keyCode": 164, "keyCodeWithoutLocation": 18, "key": "Alt", "location": 1},
    "Space": {"keyCode": 32, "key": " "},
    "AltRight": {"keyCode": 165, "keyCodeWithoutLocation": 18, "key": "Alt", "location": 2},
    "AltGraph": {"keyCode": 225, "key": "AltGraph"},
    "MetaRight": {"keyCode": 92, "key": "Meta", "location": 2},
    "ContextMenu": {"keyCode": 93, "key": "ContextMenu"},
    "ControlRight": {"keyCode": 163, "keyCodeWithoutLocation": 17, "key": "Control", "location": 2},
    "PrintScreen": {"keyCode": 44, "key": "PrintScreen"},
    "ScrollLock": {"keyCode": 145, "key": "ScrollLock"},
    "Pause": {"keyCode": 19, "key": "Pause"},
    "PageUp": {"keyCode": 33, "key": "PageUp"},
    "PageDown": {"keyCode": 34, "key": "PageDown"},
    "Insert": {"keyCode": 45, "key": "Insert"},
    "Delete": {"keyCode": 46, "key": "Delete"},
    "Home": {"keyCode": 36, "key": "Home"},
    "End": {"keyCode": 35, "key": "End"},
    "ArrowLeft": {"keyCode": 37, "key": "ArrowLeft"},
    "ArrowUp": {"keyCode": 38, "key": "ArrowUp"},
    "ArrowRight": {"keyCode": 39, "key": "ArrowRight"},
    "ArrowDown": {"keyCode": 40, "key": "ArrowDown"},
    "AudioVolumeMute": {"keyCode": 173, "key": "AudioVolumeMute"},
    "AudioVolumeDown": {"keyCode": 174, "key": "AudioVolumeDown"},
    "AudioVolumeUp": {"keyCode": 175, "key": "AudioVolumeUp"},
    "MediaTrackNext": {"keyCode": 176, "key": "MediaTrackNext"},
    "MediaTrackPrevious": {"keyCode": 177, "key": "MediaTrackPrevious"},
    "MediaPlayPause": {"keyCode": 179, "key": "MediaPlayPause"},
    "NumLock": {"keyCode": 144, "key": "NumLock"},
    "NumpadDivide": {"keyCode": 111, "key": "/", "location": 3},
    "NumpadMultiply": {"keyCode": 106, "key": "*", "location": 3},
    "NumpadSubtract": {"keyCode": 109, "key": "-", "location": 3},
    "Numpad7": {"keyCode": 36, "shiftKeyCode": 103, "key": "Home", "shiftKey": "7", "location": 3},
    "Numpad8": {"keyCode": 38, "shiftKeyCode": 104, "key": "ArrowUp", "shiftKey": "8", "location": 3},
    "Numpad9": {"keyCode": 33, "shiftKeyCode": 105, "key": "PageUp", "shiftKey": "9", "location": 3},
    "Numpad4": {"keyCode": 37, "shiftKeyCode": 100, "key": "ArrowLeft", "shiftKey": "4", "location": 3},
    "Numpad5": {"keyCode": 12, "shiftKeyCode": 101, "key": "Clear", "shiftKey": "5", "location": 3},
    "Numpad6": {"keyCode": 39, "shiftKeyCode": 102, "key": "ArrowRight", "shiftKey": "6", "location": 3},
    "NumpadAdd": {"keyCode": 107, "key": "+", "location": 3},
    "Numpad1": {"keyCode": 35, "shiftKeyCode": 97, "key": "End", "shiftKey": "1", "location": 3},
    "Numpad2": {"keyCode": 40, "shiftKeyCode": 98, "key": "ArrowDown", "shiftKey": "2", "location": 3},
    "Numpad3": {"keyCode": 34, "shiftKeyCode": 99, "key": "PageDown", "shiftKey": "3", "location": 3},
    "Numpad0": {"keyCode": 45, "shiftKeyCode": 96, "key": "Insert", "shiftKey": "0", "location": 3},
    "NumpadDecimal": {"keyCode": 46, "shiftKeyCode": 110, "key": "Delete", "shiftKey": ".", "location": 3},
    "NumpadEnter": {"keyCode": 13, "key": "Enter", "text": "\r", "location": 3},
}

_CODE_ALIASES = {
    "ShiftLeft": ["Shift"],
    "ControlLeft": ["Control"],
    "AltLeft": ["Alt"],
    "MetaLeft": ["Meta"],
    "Enter": ["\n", "\r"],
}

#: common names that are not key names, with the name to use instead
KEY_ALIASES = {
    "left": "ArrowLeft",
    "right": "ArrowRight",
    "up": "ArrowUp",
    "down": "ArrowDown",
    "esc": "Escape",
    "return": "Enter",
    "del": "Delete",
    "ctrl": "Control",
    "cmd": "Meta",
    "command": "Meta",
    "option": "Alt",
    "spacebar": "Space",
}

MODIFIERS = ("Alt", "Control", "Meta", "Shift")
MODIFIER_BITS = {"Alt": 1, "Control": 2, "Meta": 4, "Shift": 8}


@dataclass(frozen=True)
class KeyDescription:
    key: str
    key_code: int
    key_code_without_location: int
    code: str
    text: str
    location: int
    shifted: KeyDescription | None = None


def _build() -> dict[str, KeyDescription]:
    out: dict[str, KeyDescription] = {}
    for code, d in _LAYOUT.items():
        key = d["key"]
        desc = KeyDescription(
            key=key,
            key_code=d["keyCode"],
            key_code_without_location=d.get("keyCodeWithoutLocation", d["keyCode"]),
            code=code,
            text=key if len(key) == 1 else d.get("text", ""),
            location=d.get("location", 0),
        )
        shifted = None
        if "shiftKey" in d:
            kc = d.get("shiftKeyCode")
            shifted = replace(
                desc,
                key=d["shiftKey"],
                text=d["shiftKey"],
                key_code=kc or desc.key_code,
                key_code_without_location=kc or desc.key_code_without_location,
            )
        full = replace(desc, shifted=shifted)
        out[code] = full
        for alias in _CODE_ALIASES.get(code, ()):
            out[alias] = desc
        if desc.location:
            continue
        if len(key) == 1:
            out[key] = full  # Shift held + "a" types "A" (B116)
        if shifted is not None:
            out[shifted.key] = shifted
    return out


US_LAYOUT = _build()
#: named keys and codes, lower-cased (characters stay literal)
_NAMED_LOWER = {name.lower(): name for name in US_LAYOUT if len(name) > 1}


def _platform_control_or_meta() -> str:
    return "Meta" if sys.platform == "darwin" else "Control"


def normalize_key_name(name: str) -> str:
    """Resolve ``ControlOrMeta`` and case-insensitive named keys; raise on unknown keys."""
    if name.lower() == "controlormeta":
        return _platform_control_or_meta()
    if name in US_LAYOUT:
        return name
    if len(name) > 1:
        found = _NAMED_LOWER.get(name.lower())
        if found is not None:
            return found
    hint = KEY_ALIASES.get(name.lower())
    message = f'Unknown key: "{name}"'
    if hint is not None:
        message += f'; Use "{hint}"'
    raise InvalidArgument(message, api="keyboard", option="key", expected="a key name (API.md §6)")


def describe_key(name: str) -> KeyDescription:
    return US_LAYOUT[normalize_key_name(name)]


def split_chord(key: str) -> list[str]:
    """``"Shift+Tab"`` → ``["Shift", "Tab"]``; ``"+"`` → ``["+"]``; ``"Control++"`` → ``["Control", "+"]``."""
    assert isinstance(key, str) and key, "the schema checks the key"
    tokens: list[str] = []
    building = ""
    for ch in key:
        if ch == "+" and building:
            tokens.append(building)
            building = ""
        else:
            building += ch
    tokens.append(building)
    return tokens


def modifiers_mask(modifiers: set[str] | frozenset[str]) -> int:
    mask = 0
    for m in modifiers:
        mask |= MODIFIER_BITS.get(m, 0)
    return mask


# Editor commands for shortcuts on Linux/Windows (Blink's non-mac key-binding table).
# Key: (frozenset of modifiers, code). Value: command names for Input.dispatchKeyEvent.commands.
_EDIT_COMMANDS: dict[tuple[frozenset[str], str], list[str]] = {
    (frozenset({"Control"}), "KeyA"): ["selectAll"],
    (frozenset({"Control"}), "KeyC"): ["copy"],
    (frozenset({"Control"}), "KeyX"): ["cut"],
    (frozenset({"Control"}), "KeyV"): ["paste"],
    (frozenset({"Control", "Shift"}), "KeyV"): ["pasteAndMatchStyle"],
    (frozenset({"Control"}), "KeyZ"): ["undo"],
    (frozenset({"Control", "Shift"}), "KeyZ"): ["redo"],
    (frozenset({"Control"}), "KeyY"): ["redo"],
    (frozenset({"Control"}), "Insert"): ["copy"],
    (frozenset({"Shift"}), "Insert"): ["paste"],
    (frozenset({"Shift"}), "Delete"): ["cut"],
}


def editing_commands(code: str, modifiers: set[str]) -> list[str]:
    if sys.platform == "darwin":  # the mac table is much larger; not needed on our platforms
        return []
    return list(_EDIT_COMMANDS.get((frozenset(modifiers), code), ()))


class Keyboard:
    """Pressed keys and modifiers of one Page; dispatches trusted key events.

    ``send`` is an async callable ``(method, params) -> result`` for the page's top session.
    """

    def __init__(self, send: Send) -> None:
        self._send = send
        self.pressed_modifiers: set[str] = set()
        self._pressed_codes: set[str] = set()

    @property
    def modifiers(self) -> int:
        """CDP modifier bit mask of the held modifiers (for mouse events)."""
        return modifiers_mask(self.pressed_modifiers)

    def _description(self, name: str) -> KeyDescription:
        desc = describe_key(name)
        if "Shift" in self.pressed_modifiers and desc.shifted is not None:
            desc = desc.shifted
        mods = self.pressed_modifiers
        if len(mods) > 1 or (len(mods) == 1 and "Shift" not in mods):
            desc = replace(desc, text="")
        return desc

    async def down(self, key: str) -> None:
        desc = self._description(key)
        auto_repeat = desc.code in self._pressed_codes
        self._pressed_codes.add(desc.code)
        if desc.key in MODIFIERS:
            self.pressed_modifiers.add(desc.key)
        text = desc.text
        params: dict[str, Any] = {
            "type": "keyDown" if text else "rawKeyDown",
            "modifiers": modifiers_mask(self.pressed_modifiers),
            "windowsVirtualKeyCode": desc.key_code_without_location,
            "code": desc.code,
            "key": desc.key,
            "text": text,
            "unmodifiedText": text,
            "autoRepeat": auto_repeat,
            "location": desc.location,
            "isKeypad": desc.location == KEYPAD_LOCATION,
        }
        commands = editing_commands(desc.code, self.pressed_modifiers)
        if commands:
            params["commands"] = commands
        await self._send("Input.dispatchKeyEvent", params)

    async def up(self, key: str) -> None:
        desc = self._description(key)
        if desc.key in MODIFIERS:
            self.pressed_modifiers.discard(desc.key)
        self._pressed_codes.discard(desc.code)
        await self._send(
            "Input.dispatchKeyEvent",
            {
                "type": "keyUp",
                "modifiers": modifiers_mask(self.pressed_modifiers),
                "key": desc.key,
                "windowsVirtualKeyCode": desc.key_code_without_location,
                "code": desc.code,
                "location": desc.location,
                "isKeypad": desc.location == KEYPAD_LOCATION,
            },
        )

    async def press(self, key: str, *, delay: float) -> None:
        """Press a key or chord. Unknown keys raise ``InvalidArgument`` before anything is sent
        for them; modifiers already pressed by the chord are released first."""
        tokens = split_chord(key)
        # validate everything up front: nothing is sent for an invalid chord
        try:
            for token in tokens:
                normalize_key_name(token)
        except InvalidArgument as exc:
            exc.api = "keyboard.press"
            raise
        held: list[str] = []
        try:
            for token in tokens[:-1]:
                await self.down(token)
                held.append(token)
            if delay:
                await self.down(tokens[-1])
                await asyncio.sleep(delay / 1000)  # the caller asked for this pause
                await self.up(tokens[-1])
            else:
                # keyDown and keyUp back to back: one wait for the renderer instead of two
                await send_pair(self.down(tokens[-1]), self.up(tokens[-1]))
        finally:
            for token in reversed(held):
                await self.up(token)

    async def type(self, text: str, *, delay: float) -> None:
        """One keydown/keyup per character on the US layout; other characters as native text."""
        for ch in text:
            if ch in US_LAYOUT:
                desc = US_LAYOUT[ch]
                base = US_LAYOUT.get(desc.code)
                shifted = base is not None and base.shifted is not None and base.shifted.key == ch
                if shifted and "Shift" not in self.pressed_modifiers:
                    # a real US keyboard: Shift goes down for shifted characters (shiftKey set)
                    await self.down("Shift")
                    try:
                        await self.press(ch, delay=delay)
                    finally:
                        await self.up("Shift")
                else:
                    await self.press(ch, delay=delay)
            else:
                if delay:
                    await asyncio.sleep(delay / 1000)
                await self.insert_text(ch)

    async def insert_text(self, text: str) -> None:
        await self._send("Input.insertText", {"text": text})

    async def paste(self, content: str | dict[str, Any]) -> None:
        """Fill the clipboard (text, and HTML when given), send the paste shortcut, restore.

        The clipboard is written from the top document (``navigator.clipboard.write`` with a
        user gesture; ``execCommand("copy")`` with a one-shot copy listener as fallback) and the
        shortcut goes to whatever is focused, so the page sees a native, trusted ``paste``.
        """
        text, html = _paste_content(content)
        try:  # lets the top document read and write the clipboard (best effort)
            await self._send(
                "Browser.grantPermissions",
                {"permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]},
            )
        except EgoError:  # best effort: without it the fallback below still pastes
            pass
        res = await self._send(
            "Runtime.evaluate",
            {
                "expression": jsbundle.call("main", "clipboard_write", text, html),
                "awaitPromise": True,
                "returnByValue": True,
                "userGesture": True,
            },
        )
        saved = ((res.get("result") or {}).get("value") or {}).get("saved")
        await self.press(_platform_control_or_meta() + "+V", delay=0)
        if saved is not None:
            try:
                await self._send(
                    "Runtime.evaluate",
                    {
                        "expression": f"navigator.clipboard.writeText({_json(saved)}).then(() => true, () => false)",
                        "awaitPromise": True,
                        "returnByValue": True,
                        "userGesture": True,
                    },
                )
            except EgoError:  # the page went on (navigated, closed): nothing to restore
                pass

    async def release_all(self) -> None:
        """Release every held modifier (used after an error mid-chord)."""
        for m in list(self.pressed_modifiers):
            await self.up(m)


def _json(value: Any) -> str:
    import json

    return json.dumps(value)


def _paste_content(content: str | dict[str, Any]) -> tuple[str, str | None]:
    if isinstance(content, str):
        return content, None
    assert isinstance(content, dict) and isinstance(content.get("text"), str), "the schema checks the content"
    return content["text"], content.get("html")


def chord_is_valid(key: str) -> bool:
    try:
        for token in split_chord(key):
            normalize_key_name(token)
    except InvalidArgument:
        return False
    return True
