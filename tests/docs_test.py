#!/usr/bin/python3
"""Every cross-reference to a section of the project's documents names a section that exists
(ctest docs_against_sources). A reference is a document and a quoted section title, as the docs
and the code write them:

    docs/API.md, "Table affinity"      docs/OPERATIONS.md ("Memory")      README, "Install"

and, inside a document, a title in parentheses or after "see", which names a section of the
same document: ("Retries"), see "Batches". A section is a heading (its number aside: "7.
Puzzles as data: …") or a paragraph or item that opens with its title in bold. A title
matches a section that is the title, or begins with it followed by ':', ' (', ' —' or ','
("Memory" is "Memory: what a client can make the server hold").

And every HTTP endpoint of docs/openapi.json is in docs/API.md's table, and back.

    docs_test.py SOURCE_DIR
"""

import os
import re
import sys

SOURCE = sys.argv[1]
DOCUMENTS = ["README.md", "clients/python/README.md", "core/README.md"]
# Where references are written: the documents, and the code's comments and messages.
SCANNED_DIRS = ["docs", "core", "service", "server", "client", "builder", "clients/python",
                "deploy", "scripts", "tests", "bench", "fuzz", "examples", "cmake", "proto"]
SCANNED_EXT = (".md", ".cc", ".h", ".py", ".js", ".sh", ".txt", ".in", ".proto", ".cmake",
               ".html", ".json", ".conf", ".service")

# "docs/X.md" | "X.md" | "README" (the top README) | "clients/python/README.md", then a title.
NAMED = re.compile(r'((?:docs/)?[A-Z_]+\.md|clients/python/README\.md|core/README\.md|README)'
                   r'(?:,\s*|\s*\(\s*|\s+section\s+)"([^"\n]{2,80})"')
# Inside a document: ("Title") or see "Title".
LOCAL = re.compile(r'(?:\(\s*|\bsee\s+)"([A-Z][^"\n]{1,80})"')


def headings(path):
    titles = []
    in_code = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("```"):
                in_code = not in_code
            if not in_code:
                m = re.match(r"#{1,6}\s+(?:\d+\.\s+)?(.*?)\s*$", line)
                if m:
                    titles.append(m.group(1).replace("`", ""))
                # A paragraph or an item that opens with its title in bold.
                m = re.match(r"\s*(?:[-*]\s+)?\*\*([^*]+?)\.?\*\*", line)
                if m:
                    titles.append(m.group(1).replace("`", ""))
    return titles


def matches(title, titles):
    title = title.replace("`", "")
    for h in titles:
        if h == title or any(h.startswith(title + sep) for sep in (":", " (", " —", ",")):
            return True
    return False


def document_of(name, referring_file):
    if name == "README":
        return "README.md"
    if name.startswith("docs/") or name.startswith("clients/") or name.startswith("core/"):
        return name
    if os.path.exists(os.path.join(SOURCE, "docs", name)):
        return "docs/" + name
    if name == "README.md":
        # README.md beside the referring file where there is one, else the top one.
        beside = os.path.join(os.path.dirname(referring_file), "README.md")
        if os.path.exists(os.path.join(SOURCE, beside)):
            return beside
        return "README.md"
    return None


def scanned_files():
    for top in ["README.md"] + SCANNED_DIRS:
        path = os.path.join(SOURCE, top)
        if os.path.isfile(path):
            yield top
            continue
        for root, dirs, files in os.walk(path):
            dirs[:] = [d for d in dirs if d not in ("node_modules", "corpus", "regressions", "golden")]
            for name in files:
                if name.endswith(SCANNED_EXT):
                    yield os.path.relpath(os.path.join(root, name), SOURCE)


def endpoint_differences():
    """The HTTP endpoints of docs/openapi.json against docs/API.md's table ("HTTP"), both
    ways: a row is `METHOD /path[?query]` and more paths after it (`, `/other``); HEAD goes
    wherever GET does."""
    import json
    with open(os.path.join(SOURCE, "docs/openapi.json"), encoding="utf-8") as f:
        spec = json.load(f)
    documented_api = set()
    for path, item in spec["paths"].items():
        for method in ("get", "post"):
            if method in item:
                documented_api.add((method.upper(), path))
    table = set()
    with open(os.path.join(SOURCE, "docs/API.md"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\|\s*`(GET|POST) ([^`?]+)[^`]*`((?:,\s*`/[^`]*`)*)", line)
            if not m:
                continue
            table.add((m.group(1), m.group(2)))
            for extra in re.findall(r"`(/[^`?]*)", m.group(3)):
                table.add((m.group(1), extra))
    problems = [f"docs/openapi.json has {m} {p}, docs/API.md's HTTP table has not"
                for m, p in sorted(documented_api - table)]
    problems += [f"docs/API.md's HTTP table has {m} {p}, docs/openapi.json has not"
                 for m, p in sorted(table - documented_api)]
    return problems


def main():
    cache = {}

    def titles_of(doc):
        if doc not in cache:
            path = os.path.join(SOURCE, doc)
            cache[doc] = headings(path) if os.path.exists(path) else None
        return cache[doc]

    broken = []
    count = 0
    for rel in scanned_files():
        if rel == "tests/docs_test.py":
            continue
        with open(os.path.join(SOURCE, rel), encoding="utf-8", errors="replace") as f:
            text = f.read()
        # A reference may be folded over two lines of a comment.
        flat = re.sub(r"\n\s*(?://|#|\*)?\s*", " ", text)
        for m in NAMED.finditer(flat):
            doc = document_of(m.group(1), rel)
            titles = titles_of(doc) if doc else None
            count += 1
            if titles is None:
                broken.append(f"{rel}: {m.group(1)}, \"{m.group(2)}\": no such document")
            elif not matches(m.group(2), titles):
                broken.append(f"{rel}: {doc} has no section \"{m.group(2)}\"")
        if rel.endswith(".md"):
            own = titles_of(rel)
            for m in LOCAL.finditer(flat):
                start = m.start()
                # Named references are checked above.
                if NAMED.search(flat[max(0, start - 40):m.end()]):
                    continue
                # A message quoted in parentheses, not a title ("Compression algorithm
                # 'gzip' is disabled").
                if re.search(r"'[^']+'", m.group(1)):
                    continue
                count += 1
                if not matches(m.group(1), own):
                    broken.append(f"{rel}: no section \"{m.group(1)}\" in this document")
    broken.extend(endpoint_differences())
    for b in sorted(set(broken)):
        print(b)
    print(f"docs: {count} references, {len(set(broken))} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
