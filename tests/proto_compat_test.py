#!/usr/bin/python3
"""solver.proto as it is against earlier versions of itself (ctest proto_compat): a client built
from an earlier commit's headers talks to today's server, and a client built from today's
installed headers to a server of an earlier commit, only if every field keeps its number,
type and cardinality, no number is given to another field, no enum value changes its
number, and no method changes its messages. Compared with: the previous commit's proto, the
proto before the last commit that changed it, and the first version (tests/compat/).

    proto_compat_test.py PROTOC SOURCE_DIR

Where git's history is not there (an export without .git), the two git versions are
skipped, saying so; the first version is always compared.
"""

import os
import subprocess
import sys
import tempfile

from google.protobuf import descriptor_pb2

PROTOC, SOURCE = sys.argv[1:3]
PROTO = "proto/puzzledb/v1/solver.proto"


def descriptors(text: str, workdir: str, name: str) -> descriptor_pb2.FileDescriptorSet:
    """The descriptor set of one version of solver.proto, compiled by protoc."""
    root = os.path.join(workdir, name)
    path = os.path.join(root, "puzzledb/v1/solver.proto")
    os.makedirs(os.path.dirname(path))
    with open(path, "w") as f:
        f.write(text)
    out = os.path.join(workdir, name + ".pb")
    subprocess.run([PROTOC, "--proto_path=" + root, "--descriptor_set_out=" + out,
                    "puzzledb/v1/solver.proto"], check=True)
    fds = descriptor_pb2.FileDescriptorSet()
    with open(out, "rb") as f:
        fds.ParseFromString(f.read())
    return fds


def index(fds):
    """Messages (by full name: {number: field}), enums ({name: number}), methods."""
    messages, enums, methods = {}, {}, {}

    def walk(prefix, message_types, enum_types):
        for e in enum_types:
            enums[prefix + e.name] = {v.name: v.number for v in e.value}
        for m in message_types:
            name = prefix + m.name
            messages[name] = {f.number: f for f in m.field}
            walk(name + ".", m.nested_type, m.enum_type)

    for f in fds.file:
        walk(f.package + ".", f.message_type, f.enum_type)
        for s in f.service:
            for m in s.method:
                methods[f"{f.package}.{s.name}/{m.name}"] = (m.input_type, m.output_type,
                                                             m.client_streaming, m.server_streaming)
    return messages, enums, methods


F = descriptor_pb2.FieldDescriptorProto
# Types that read each other's bytes (protobuf's language guide, "Updating a message type"):
# the varints among themselves (int32 and an enum, say), strings and bytes; a message only
# as the same message.
WIRE_CLASS = {F.TYPE_INT32: "varint", F.TYPE_INT64: "varint", F.TYPE_UINT32: "varint",
              F.TYPE_UINT64: "varint", F.TYPE_BOOL: "varint", F.TYPE_ENUM: "varint",
              F.TYPE_SINT32: "zigzag", F.TYPE_SINT64: "zigzag",
              F.TYPE_FIXED32: "fixed32", F.TYPE_SFIXED32: "fixed32",
              F.TYPE_FIXED64: "fixed64", F.TYPE_SFIXED64: "fixed64",
              F.TYPE_FLOAT: "float", F.TYPE_DOUBLE: "double",
              F.TYPE_STRING: "bytes", F.TYPE_BYTES: "bytes"}


def wire(field):
    """How a field's value travels: its wire class, or the message it is."""
    return WIRE_CLASS.get(field.type, field.type_name)


def breaks(old, new):
    """What in `new` breaks a peer built from `old`."""
    problems = []
    old_messages, old_enums, old_methods = index(old)
    new_messages, new_enums, new_methods = index(new)
    for name, fields in old_messages.items():
        if name not in new_messages:
            problems.append(f"message {name} is gone")
            continue
        for number, field in fields.items():
            now = new_messages[name].get(number)
            if now is None:
                # A removed field must leave its number reserved; the wire then skips it.
                continue
            if (wire(now), now.label) != (wire(field), field.label):
                problems.append(f"{name}.{field.name} (field {number}) changed its type or "
                                f"cardinality (now {now.name})")
    for name, values in old_enums.items():
        for value, number in values.items():
            if new_enums.get(name, {}).get(value, number) != number:
                problems.append(f"enum {name}.{value} changed its number")
    for name, signature in old_methods.items():
        if name not in new_methods:
            problems.append(f"method {name} is gone")
        elif new_methods[name] != signature:
            problems.append(f"method {name} changed its messages or streaming")
    return problems


def git(*args):
    return subprocess.run(["git", "-C", SOURCE, *args], capture_output=True, text=True)


def main():
    with open(os.path.join(SOURCE, PROTO)) as f:
        today = f.read()
    versions = []
    with open(os.path.join(SOURCE, "tests/compat/solver_first_version.proto")) as f:
        versions.append(("the first version's proto (tests/compat/)", f.read()))
    previous = git("show", "HEAD~1:" + PROTO)
    if previous.returncode == 0:
        versions.append(("the previous commit's proto", previous.stdout))
        last = git("log", "-1", "--format=%H", "HEAD", "--", PROTO).stdout.strip()
        before = git("show", f"{last}~1:{PROTO}") if last else previous
        if before.returncode == 0:
            versions.append((f"the proto before {last[:7]} (the last commit that changed it)",
                             before.stdout))
    else:
        print("proto_compat: no git history here: compared with the first version only",
              file=sys.stderr)
    failed = False
    with tempfile.TemporaryDirectory() as work:
        new = descriptors(today, work, "today")
        for i, (what, text) in enumerate(versions):
            old = descriptors(text, work, f"v{i}")
            problems = breaks(old, new)
            if problems:
                failed = True
                print(f"solver.proto breaks {what}:")
                for p in problems:
                    print("  " + p)
            else:
                print(f"solver.proto keeps the wire of {what}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
