#!/usr/bin/env python3
"""Fills a store with copies of its first session (rows and all), for `history` benchmarks.

Usage: copy_sessions.py DATABASE COUNT   (the database then holds COUNT sessions)
"""
import sqlite3
import sys

TABLES = ["device", "step_result", "sample", "notification", "control"]


def main():
    path, count = sys.argv[1], int(sys.argv[2])
    db = sqlite3.connect(path)
    columns = {t: [r[1] for r in db.execute(f"PRAGMA table_info({t})")] for t in TABLES + ["session"]}
    session_columns = [c for c in columns["session"] if c != "id"]
    with db:
        for n in range(1, count):
            # Spread the copies over the last months, one a day or so.
            cursor = db.execute(
                f"INSERT INTO session ({', '.join(session_columns)}) "
                f"SELECT {', '.join(session_columns)} FROM session WHERE id = 1")
            new_id = cursor.lastrowid
            db.execute("UPDATE session SET started_at = strftime('%Y-%m-%dT%H:%M:%SZ', started_at, ?) WHERE id = ?",
                       (f"-{count - n} hours", new_id))
            for table in TABLES:
                rest = [c for c in columns[table] if c != "session_id"]
                db.execute(f"INSERT INTO {table} (session_id, {', '.join(rest)}) "
                           f"SELECT ?, {', '.join(rest)} FROM {table} WHERE session_id = 1", (new_id,))
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


if __name__ == "__main__":
    main()
