"""Trello board exports shaped as Trello's "Export as JSON" writes them (the board object of
Trello's REST API with its lists, cards, labels, members, checklists, custom fields and actions,
https://developer.atlassian.com/cloud/trello/rest/api-group-boards/), for the import tests.

`board()` is the fixture Tests/fixtures/trello-export.json holds (regenerate it with
`python3 Tests/process/trello_export.py > Tests/fixtures/trello-export.json`).
"""

import json

BOARD_ID = "5f1a2b3c4d5e6f7a8b9c0d1e"


def oid(kind, n):
    """A 24-hex-digit Trello object id."""
    return "%s%020x" % ({"list": "6a01", "card": "6c01", "label": "6b01", "member": "6d01",
                         "checklist": "6e01", "item": "6f01", "action": "7a01", "field": "7b01"}[kind], n)


def member(n, username, full):
    return {"id": oid("member", n), "username": username, "fullName": full, "initials": full[:1],
            "avatarHash": None, "avatarUrl": None, "memberType": "normal", "confirmed": True,
            "activityBlocked": False, "idEnterprise": None, "nonPublic": {}, "nonPublicAvailable": True}


def label(n, name, color):
    return {"id": oid("label", n), "idBoard": BOARD_ID, "name": name, "color": color, "uses": 1}


def lst(n, name, pos, closed=False):
    return {"id": oid("list", n), "name": name, "closed": closed, "idBoard": BOARD_ID, "pos": pos,
            "subscribed": False, "softLimit": None, "status": None, "color": None}


def card(n, name, list_n, pos, desc="", labels=(), members=(), due=None, closed=False,
         checklists=(), attachments=0, custom_fields=0, stickers=0, votes=0, start=None, cover_color=None):
    lab = [oid("label", x) for x in labels]
    return {
        "id": oid("card", n), "name": name, "desc": desc, "closed": closed, "idList": oid("list", list_n),
        "idBoard": BOARD_ID, "pos": pos, "idLabels": lab, "idMembers": [oid("member", x) for x in members],
        "idChecklists": [oid("checklist", x) for x in checklists], "due": due, "dueComplete": False,
        "dueReminder": None, "start": start, "idShort": n, "shortLink": "aB%04d" % n,
        "shortUrl": "https://trello.com/c/aB%04d" % n, "url": "https://trello.com/c/aB%04d/%d" % (n, n),
        "dateLastActivity": "2026-11-20T10:00:00.000Z", "subscribed": False, "isTemplate": False,
        "idMembersVoted": [oid("member", 90 + i) for i in range(votes)],
        "labels": [], "badges": {"votes": votes, "attachments": attachments, "comments": 0},
        "cover": {"idAttachment": None, "color": cover_color, "idUploadedBackground": None, "size": "normal",
                  "brightness": "light"},
        "attachments": [
            {"id": oid("item", 500 + n * 10 + i), "name": "file%d.pdf" % i, "bytes": 1234,
             "url": "https://trello.com/1/cards/x/attachments/y/download/file.pdf", "mimeType": "application/pdf",
             "date": "2026-11-01T09:00:00.000Z", "isUpload": True, "idMember": oid("member", 1)}
            for i in range(attachments)],
        "customFieldItems": [
            {"id": oid("item", 700 + n * 10 + i), "value": {"text": "v%d" % i}, "idCustomField": oid("field", i),
             "idModel": oid("card", n), "modelType": "card"} for i in range(custom_fields)],
        "stickers": [{"id": oid("item", 900 + n * 10 + i), "top": 0, "left": 0, "zIndex": 1, "rotate": 0,
                      "image": "thumbsup"} for i in range(stickers)],
        "pluginData": [], "coordinates": None, "address": None, "locationName": None,
    }


def checklist(n, card_n, name, pos, entries):
    return {"id": oid("checklist", n), "name": name, "idBoard": BOARD_ID, "idCard": oid("card", card_n),
            "pos": pos, "checkItems": [
                {"id": oid("item", n * 100 + i), "name": text, "state": "complete" if done else "incomplete",
                 "idChecklist": oid("checklist", n), "pos": (i + 1) * 16384, "due": None, "idMember": None,
                 "nameData": None} for i, (text, done) in enumerate(entries)]}


def comment(n, card_n, card_name, who, text, date):
    m = who
    return {"id": oid("action", n), "idMemberCreator": m["id"], "type": "commentCard", "date": date,
            "data": {"text": text, "textData": {"emoji": {}}, "card": {"id": oid("card", card_n),
                     "name": card_name, "idShort": card_n, "shortLink": "aB%04d" % card_n},
                     "board": {"id": BOARD_ID, "name": "Launch", "shortLink": "bRd1"},
                     "list": {"id": oid("list", 1), "name": "To do"}},
            "appCreator": None, "limits": {},
            "memberCreator": {"id": m["id"], "username": m["username"], "fullName": m["fullName"],
                              "activityBlocked": False, "avatarHash": None, "avatarUrl": None,
                              "initials": m["initials"], "idMemberReferrer": None, "nonPublic": {},
                              "nonPublicAvailable": True}}


def board():
    """Three open lists (given out of order), a closed list with a card, labels with and without
    names (one without a color), two members, a card with two checklists and one with one,
    comments (newest first, as Trello lists actions), a closed card, attachments, custom fields,
    a sticker, votes, and actions other than comments."""
    ann = member(1, "annlee", "Ann Lee")
    bo = member(2, "bo_k", "Bo K")
    return {
        "id": BOARD_ID, "name": "Launch", "desc": "Everything for the launch", "descData": None,
        "closed": False, "idOrganization": None, "pinned": False, "url": "https://trello.com/b/bRd1/launch",
        "shortUrl": "https://trello.com/b/bRd1",
        "prefs": {"permissionLevel": "private", "background": "blue", "cardCovers": True},
        "labelNames": {"green": "Easy", "red": "Bug"},
        "labels": [label(1, "Bug", "red"), label(2, "", "green_dark"), label(3, "Later", None),
                   label(4, "", None)],
        "lists": [lst(2, "Doing", 32768), lst(1, "To do", 16384), lst(4, "Old", 8192, closed=True),
                  lst(3, "Done", 65536)],
        "cards": [
            card(2, "Second in To do", 1, 32768, labels=[2], due="2026-12-24T17:30:00.000Z",
                 attachments=2, custom_fields=1),
            card(1, "First in To do", 1, 16384, desc="Line one\nLine two, with \"quotes\"", labels=[1, 3],
                 members=[1, 2], checklists=[1, 2], stickers=1, votes=2),
            card(3, "=SUM(A1:A9)", 2, 16384, desc="-starts with a minus", members=[2], checklists=[3],
                 custom_fields=2, start="2026-12-01T00:00:00.000Z"),
            card(4, "Shipped", 3, 16384, labels=[4]),
            card(5, "Closed card", 3, 32768, closed=True),
            card(6, "In a closed list", 4, 16384, attachments=1),
        ],
        "members": [ann, bo],
        "checklists": [
            checklist(2, 1, "Later", 32768, [("Tell people", False)]),
            checklist(1, 1, "Steps", 16384, [("Write it", True), ("Test it", False)]),
            checklist(3, 3, "Only", 16384, [("@mention", True)]),
        ],
        "customFields": [{"id": oid("field", 0), "idModel": BOARD_ID, "modelType": "board", "name": "Size",
                          "type": "text", "pos": 16384}],
        "actions": [
            comment(3, 1, "First in To do", bo, "Done, see the PR", "2026-11-21T08:00:00.000Z"),
            {"id": oid("action", 9), "idMemberCreator": ann["id"], "type": "updateCard",
             "date": "2026-11-20T12:00:00.000Z", "data": {"card": {"id": oid("card", 1)}, "old": {"pos": 1}},
             "memberCreator": {"id": ann["id"], "username": "annlee", "fullName": "Ann Lee"}},
            comment(2, 3, "=SUM(A1:A9)", ann, "=cmd|' /C calc'!A0", "2026-11-20T11:00:00.000Z"),
            comment(1, 1, "First in To do", ann, "Can you look?\nThanks", "2026-11-20T10:00:00.123Z"),
            {"id": oid("action", 8), "idMemberCreator": ann["id"], "type": "createCard",
             "date": "2026-11-19T12:00:00.000Z", "data": {"card": {"id": oid("card", 1)}},
             "memberCreator": {"id": ann["id"], "username": "annlee", "fullName": "Ann Lee"}},
        ],
        "pluginData": [{"id": oid("item", 1), "idPlugin": oid("item", 2), "scope": "board", "value": "{}"}],
        "dateLastActivity": "2026-11-21T08:00:00.000Z",
    }


if __name__ == "__main__":
    print(json.dumps(board(), indent=1))
