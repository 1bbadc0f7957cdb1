"""The benchmark tasks: each an app (served fresh for every run), a start path and the prompt.

Two sets: ``admin`` (five server-rendered admin jobs) and ``spa`` (the single-page app of
app_spa.py, issue 29's shapes). ``run.py --set spa`` runs one set; the default runs both."""

from __future__ import annotations

from dataclasses import dataclass

import app_booking
import app_catalog
import app_comments
import app_orders
import app_spa
import app_tickets


@dataclass(frozen=True)
class Task:
    key: str
    title: str
    app: type
    start: str
    prompt: str
    data: dict


TASKS = {t.key: t for t in (
    Task("orders", "1. Sign in, filter, search, page, count", app_orders.OrdersApp, "/", app_orders.PROMPT,
         app_orders.TASK),
    Task("booking", "2. Multi-step form: validation, date, select, checkboxes, upload", app_booking.BookingApp, "/",
         app_booking.PROMPT, app_booking.TASK),
    Task("catalog", "3. Edit a record, save and continue, verify", app_catalog.CatalogApp, "/admin/catalog/product/",
         app_catalog.PROMPT, app_catalog.TASK),
    Task("comments", "4. Bulk delete with checkboxes and a confirmation page", app_comments.CommentsApp,
         "/admin/blog/comment/", app_comments.PROMPT, app_comments.TASK),
    Task("tickets", "5. Autocomplete and a lookup popup window", app_tickets.TicketsApp, "/admin/helpdesk/ticket/",
         app_tickets.PROMPT, app_tickets.TASK),
)}
SPA_TITLES = {"spa_run": "S1. New file, type code, save, run", "spa_rename": "S2. Rename through a context menu",
              "spa_folder": "S3. New folder and a text file in it", "spa_edit": "S4. Edit a document and re-run it",
              "spa_theme": "S5. Switch the theme (menu, submenu)"}
ADMIN = list(TASKS)
for _key, _title in SPA_TITLES.items():
    TASKS[_key] = Task(_key, _title, app_spa.make(_key), "/lab", app_spa.TASKS[_key]["prompt"], app_spa.TASKS[_key])
SETS = {"admin": ADMIN, "spa": list(SPA_TITLES)}
