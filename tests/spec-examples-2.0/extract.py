#!/usr/bin/env python3
"""Write the examples of TOSCA 2.0 (csd07) that are complete TOSCA files
as test directories: tests/spec-examples-2.0/<name>/, each with the entry
file `example.yaml` and the files it imports, named as the import says.

    python3 tests/spec-examples-2.0/extract.py [SPEC.md]

SPEC.md defaults to ../shared/specs/TOSCA-v2.0-csd07.md beside the
checkout. A complete file is a ```yaml block with `tosca_definitions_version`;
every other yaml block is a fragment and is only counted. Which block is an
entry and which blocks it imports is the table EXAMPLES below, reviewed by
hand against the text; the script fails if a complete block is in no
example, so a new draft cannot lose one silently. Every file gets the OASIS
notice after its first line (the version line must stay first, §6.1).
"""

import re
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_SPEC = HERE.parents[2] / "shared/specs/TOSCA-v2.0-csd07.md"

# name -> (section, entry block, {imported path: (section, block)}).
# Blocks are numbered by their order among the ```yaml blocks of their
# section, from 1. Names are the section, with .<n> where a section has
# several entries.
EXAMPLES = {
    "6.2": ("6.2", 2, {}),
    # Profiles are imported by name, not by file: the three profile
    # files of the section are kept under profiles/ for a profile catalog.
    "6.7.3": ("6.7.3", 4, {
        "profiles/org.base-v1.yaml": ("6.7.3", 1),
        "profiles/org.platform.yaml": ("6.7.3", 2),
        "profiles/org.base-v2.yaml": ("6.7.3", 3),
    }),
    "6.8.4.1": ("6.8.4", 2, {"templates/TOSCAFileB.yaml": ("6.8.4", 1)}),
    "6.8.4.2": ("6.8.4", 3, {"templates/TOSCAFileB.yaml": ("6.8.4", 1)}),
    "6.8.4.3": ("6.8.4", 4, {"templates/TOSCAFileB.yaml": ("6.8.4", 1)}),
    "6.8.4.4": ("6.8.4", 6, {"mytypes.yaml": ("6.8.4", 5)}),
    # The types are a fragment (no version line) shown before the entries.
    "8.5.4.1": ("8.5.4", 2, {"types.yaml": ("8.5.4", 1)}),
    "8.5.4.2": ("8.5.4", 3, {"types.yaml": ("8.5.4", 1)}),
    "14.1.1": ("14.1", 1, {}),
    "14.1.2": ("14.1", 2, {}),
    "14.2": ("14.2", 1, {}),
    "15.5.1.1": ("15.5.1", 2, {"types.yaml": ("15.5.1", 1)}),
    "15.5.1.2": ("15.5.1", 3, {"types.yaml": ("15.5.1", 1)}),
    "15.5.1.3": ("15.5.1", 4, {"types.yaml": ("15.5.1", 1)}),
    "15.5.1.4": ("15.5.1", 5, {"types.yaml": ("15.5.1", 1)}),
    "15.5.1.5": ("15.5.1", 6, {"types.yaml": ("15.5.1", 1)}),
    "15.5.2.1": ("15.5.2", 2, {"types.yaml": ("15.5.2", 1)}),
    "15.5.2.2": ("15.5.2", 3, {"types.yaml": ("15.5.2", 1)}),
    # "the scenario from the previous section": 15.5.2's types.
    "15.5.3.1": ("15.5.3", 1, {"types.yaml": ("15.5.2", 1)}),
    "15.5.3.2": ("15.5.3", 2, {"types.yaml": ("15.5.2", 1)}),
    "15.5.4.1": ("15.5.4", 2, {"types.yaml": ("15.5.4", 1)}),
    "15.5.4.2": ("15.5.4", 3, {"types.yaml": ("15.5.4", 1)}),
    "15.5.4.3": ("15.5.4", 4, {"types.yaml": ("15.5.4", 1)}),
    # The text shows no types.yaml for 15.5.5: TYPES_15_5_5 is written
    # for these tests.
    "15.5.5.1": ("15.5.5", 1, {"types.yaml": None}),
    "15.5.5.2": ("15.5.5", 2, {"types.yaml": None}),
    "17.3": ("17.3", 1, {}),
}

# Complete blocks that are grammar, not examples (a placeholder value).
GRAMMAR = {("6.2", 1)}

# What 15.5.5's entries import but the text does not show: the capability
# and relationship types its node types use (Service, ServedBy, Host,
# HostedOn) and the Server node type its Client names. Not OASIS text.
TYPES_15_5_5 = """\
tosca_definitions_version: tosca_2_0
# Written for toscanini's tests, not OASIS text: section 15.5.5 of TOSCA
# Version 2.0 (csd07) imports a types.yaml that the text does not show.
# These are the types its examples use, as sections 15.5.1 and 15.5.2
# define them.

capability_types:
  Service:
    description: >-
      Ability to provide service.
  Host:
    description: >-
      Ability to host software.

relationship_types:
  ServedBy:
    description: >-
      Connection to a service.
  HostedOn:
    description: >-
      Relationship to a host.

node_types:
  Server:
    capabilities:
      service:
        type: Service
"""

SOURCE = "TOSCA Version 2.0 (OASIS Committee Specification Draft 07, 9 October 2024)"
HEADING = re.compile(r"^#+\s+(\d+(?:\.\d+)*)\s+(.*?)\s*(<a name=.*)?$")


def blocks(spec_text):
    """Every ```yaml block as (section, number in section, title, line, text)."""
    lines = spec_text.split("\n")
    section, title, count, out = None, None, {}, []
    i = 0
    while i < len(lines):
        m = HEADING.match(lines[i])
        if m:
            section, title = m.group(1), m.group(2)
        if lines[i].startswith("```"):
            lang = lines[i][3:].strip()
            j = i + 1
            while not lines[j].startswith("```"):
                j += 1
            if lang == "yaml":
                count[section] = count.get(section, 0) + 1
                body = "\n".join(lines[i + 1:j]).rstrip() + "\n"
                out.append((section, count[section], title, i + 2, body))
            i = j
        i += 1
    return out


def is_complete(body):
    return any(l.startswith("tosca_definitions_version") for l in body.split("\n"))


def with_notice(body, section, number, title, line):
    """The block with the notice after its version line (or, for a
    fragment, after the version line added to make it a file)."""
    notice = (
        f"# {SOURCE},\n"
        f"# section {section}: {title} (yaml block {number} of the section, line {line}).\n"
        "# Copyright (c) OASIS Open 2024. All Rights Reserved. See README.md in this directory.\n"
    )
    lines = body.split("\n")
    if is_complete(body):
        return lines[0].rstrip() + "\n" + notice + "\n".join(lines[1:])
    added = "# Changed: the text shows this file without its first line, which is added here.\n"
    return "tosca_definitions_version: tosca_2_0\n" + notice + added + body


def main():
    spec = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_SPEC
    found = blocks(spec.read_text(encoding="utf-8"))
    by_key = {(s, n): (s, n, t, line, b) for s, n, t, line, b in found}
    used = set()
    for name, (section, entry, imports) in EXAMPLES.items():
        directory = HERE / name
        if directory.exists():
            shutil.rmtree(directory)
        files = {"example.yaml": (section, entry), **imports}
        for path, key in files.items():
            target = directory / path
            target.parent.mkdir(parents=True, exist_ok=True)
            if key is None:
                target.write_text(TYPES_15_5_5, encoding="utf-8")
                continue
            used.add(key)
            s, n, title, line, body = by_key[key]
            target.write_text(with_notice(body, s, n, title, line), encoding="utf-8")
    complete = {(s, n) for s, n, _, _, b in found if is_complete(b)}
    missing = sorted(complete - used - GRAMMAR)
    if missing:
        sys.exit(f"complete examples in no test: {missing}")
    fragments = len(found) - len(complete)
    print(f"{len(found)} yaml blocks: {len(complete)} complete "
          f"({len(GRAMMAR)} of them grammar), {fragments} fragments; "
          f"{len(EXAMPLES)} examples written")


if __name__ == "__main__":
    main()
