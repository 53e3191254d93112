#!/usr/bin/env python3
"""Checks every relative link in the project's Markdown files: the file it names exists and,
with a #fragment, a heading of that file (or of the same file) has that anchor, by GitHub's
rule. Links inside code (fenced blocks, `inline`) are not links. Also checks that README.md,
the page a newcomer reads first, stays under 15 KB, and that every page the Swift sources
cite (`docs/….md`, in comments and help texts) exists.

The files are those git lists, tracked or new (not ignored), so a page not yet added is
checked too. Standard library only.

Usage: Tests/Docs/check_links.py [ROOT]   (the repository; default: this file's). Prints each
broken link as FILE:LINE: broken link TARGET (reason), then "N passed, M failed" (each link
checked, and the README's size, is one); exits 1 when any failed.
"""
import os
import re
import subprocess
import sys
import unicodedata
import urllib.parse

README_LIMIT = 15 * 1024
# [text](target) or ![alt](target), an optional "title"; the text may hold one level of
# brackets, as a linked image does: [![alt](image)](target).
TEXT = r"(?:[^\[\]\\]|\\.|\[(?:[^\[\]\\]|\\.)*\])*"
LINK = re.compile(r"!?\[(?P<text>" + TEXT + r")\]\(\s*<?(?P<target>[^)\s<>]+)>?"
                  r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)")
FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))??(?:[ \t]+#+)?[ \t]*$")
SETEXT = re.compile(r" {0,3}(=+|-+)[ \t]*$")


def listed_files(root, pattern):
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", pattern],
                            cwd=root, capture_output=True, text=True, check=True).stdout.splitlines()
    return sorted({path for path in listed if os.path.exists(os.path.join(root, path))})


def markdown_files(root):
    return listed_files(root, "*.md")


CITED_PAGE = re.compile(r"\bdocs/[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md\b")


def cited_pages(root):
    """(file, line, page) for each docs/….md a Swift source names."""
    for path in listed_files(root, "*.swift"):
        with open(os.path.join(root, path), encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                for page in CITED_PAGE.findall(line):
                    yield path, number, page


def code_spans(text):
    """(start, end) of each inline code span: a run of backticks up to the next run of the
    same length, within a paragraph."""
    spans, position = [], 0
    for run in re.finditer(r"`+", text):
        if run.start() < position:
            continue
        closing = re.compile(r"(?<!`)" + "`" * len(run.group()) + r"(?!`)")
        end = closing.search(text, run.end())
        if end and "\n\n" not in re.sub(r"\n[ \t]*\n", "\n\n", text[run.end():end.start()]):
            spans.append((run.start(), end.end()))
            position = end.end()
    return spans


def prose_lines(text):
    """Each line with its number, None for a line in a fenced code block or a fence."""
    fence = None
    for number, line in enumerate(text.split("\n"), 1):
        marker = FENCE.match(line)
        if fence is None and marker and not (marker.group(1)[0] == "`" and "`" in line[marker.end():]):
            fence = marker.group(1)
            yield number, None
        elif fence is not None:
            if marker and marker.group(1)[0] == fence[0] and len(marker.group(1)) >= len(fence) \
                    and not line[marker.end():].strip():
                fence = None
            yield number, None
        else:
            yield number, line


def prose(text):
    """The text with fenced blocks and inline code blanked out, line for line."""
    lines = [line if line is not None else "" for _, line in prose_lines(text)]
    joined = "\n".join(lines)
    for start, end in reversed(code_spans(joined)):
        joined = joined[:start] + re.sub(r"[^\n]", " ", joined[start:end]) + joined[end:]
    return joined


def slug(heading):
    """GitHub's anchor for a heading's text: the text as rendered (no code ticks, emphasis,
    link or image syntax, HTML tags), lowercased, with every character but letters, marks,
    digits, underscores, hyphens and spaces removed, and spaces as hyphens."""
    parts, position = [], 0
    for start, end in code_spans(heading) + [(len(heading), len(heading))]:
        plain = heading[position:start]
        plain = re.sub(r"!\[" + TEXT + r"\]\([^)]*\)", "", plain)          # an image shows no text
        plain = re.sub(r"\[(" + TEXT + r")\]\([^)]*\)", r"\1", plain)     # a link's text stays
        plain = re.sub(r"<[^>]+>", "", plain)
        plain = re.sub(r"\\(.)", r"\1", plain)
        plain = plain.replace("*", "")
        plain = re.sub(r"(?<![^\W_])_+|_+(?![^\W_])", "", plain)           # _emphasis_, not snake_case
        parts.append(plain)
        parts.append(heading[start:end].strip("`").strip() if start < end else "")
        position = end
    text = "".join(parts).strip().lower()
    kept = "".join(c for c in text if c in "-_ " or unicodedata.category(c)[0] in "LMN")
    return kept.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        found, seen, previous = set(), {}, None
        for _, line in prose_lines(text):
            heading = None
            if line is not None:
                atx = HEADING.match(line)
                if atx:
                    heading = atx.group(2) or ""
                elif SETEXT.match(line) and previous and previous.strip() \
                        and not re.match(r" {0,3}([#>|]|[-*+] |\d+[.)] )", previous):
                    heading = previous.strip()
            if heading is not None:
                base = slug(heading)
                count = seen.get(base, 0)
                seen[base] = count + 1
                found.add(base if count == 0 else f"{base}-{count}")
                previous = None
            else:
                previous = line
        found.update(re.findall(r'<a\s+(?:name|id)="([^"]+)"', text))
        cache[path] = found
    return cache[path]


def links(text, offset=0):
    """(offset, target) of each link and image in prose, those inside a link's text too."""
    for match in LINK.finditer(text):
        yield offset + match.start("target"), match.group("target")
        yield from links(match.group("text"), offset + match.start("text"))


def problem(root, full, target):
    file_part, _, fragment = target.partition("#")
    file_part = urllib.parse.unquote(file_part)
    if not file_part:
        linked = full
    elif file_part.startswith("/"):  # from the repository's root, as GitHub reads it
        linked = os.path.normpath(os.path.join(root, file_part.lstrip("/")))
    else:
        linked = os.path.normpath(os.path.join(os.path.dirname(full), file_part))
    if os.path.relpath(linked, root).startswith(".."):
        return "outside the repository"
    if not os.path.exists(linked):
        return "no such file"
    if fragment and linked.endswith(".md") and os.path.isfile(linked) \
            and urllib.parse.unquote(fragment) not in anchors(linked):
        return f"no heading with the anchor #{fragment} in {os.path.relpath(linked, root)}"
    return None


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
    passed = failed = 0
    for path in markdown_files(root):
        full = os.path.join(root, path)
        with open(full, encoding="utf-8") as f:
            text = prose(f.read())
        # Link text may run over a line break: the prose is searched as one text.
        for offset, target in links(text):
            if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I):  # http:, https:, mailto:
                continue
            reason = problem(root, full, target)
            if reason:
                failed += 1
                print(f"{path}:{text.count(chr(10), 0, offset) + 1}: broken link {target} ({reason})")
            else:
                passed += 1
    for path, number, page in cited_pages(root):
        if os.path.exists(os.path.join(root, page)):
            passed += 1
        else:
            failed += 1
            print(f"{path}:{number}: cites {page}, which does not exist")
    size = os.path.getsize(os.path.join(root, "README.md"))
    if size > README_LIMIT:
        failed += 1
        print(f"README.md: {size} bytes, over the {README_LIMIT} a newcomer's first page may have")
    else:
        passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
