#!/usr/bin/env python3
"""Written-back TOSCA 1.0-1.2 service templates stay valid for their version.

Usage: check.py TOSCANINI CORPUS_YAML_DIR

In: the toscanini binary and ../shared/corpus/yaml. For every input listed
in inputs.txt (beside this file): tosca-parser (an independent processor,
version pinned in requirements.txt) must accept the input; toscanini plans
it (BPEL and BPMN) into a CSAR; tosca-parser must accept that CSAR too, and
the CSAR must hold the plan archives under plans/.

Out: one line per input, and exit 1 when anything fails: a re-read that
tosca-parser rejects, an input that is missing or no longer accepted, an
input of those versions in the corpus manifest that is neither listed nor
rejected, or a self-test showing that tosca-parser no longer rejects a
deliberately broken write-back (a `workflows` section in a 1.0 template),
in which case the check would prove nothing.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

from toscaparser.common.exception import ExceptionCollector
from toscaparser.tosca_template import ToscaTemplate

HERE = os.path.dirname(os.path.abspath(__file__))
VERSIONS = ("tosca_simple_yaml_1_0", "tosca_simple_yaml_1_1", "tosca_simple_yaml_1_2")


def listed(name):
    """The non-comment lines of a list file beside this script (or in tests/)."""
    with open(name) as f:
        return [line.split()[0] for line in f if line.strip() and not line.startswith("#")]


def accepts(path):
    """None if tosca-parser reads `path`, else its errors on one line."""
    try:
        ToscaTemplate(path)
        return None
    except Exception as e:  # tosca-parser raises many kinds; each is a rejection
        report = ExceptionCollector.getExceptionsReport(full=False) or [str(e)]
        return " | ".join(line.strip() for line in report if line.strip())


def reread(corpus, name, out, work):
    """tosca-parser's verdict on the written-back `out` of the corpus item
    `name`, read as the input was. A CSAR is read as a CSAR. For a single
    YAML file, the written-back text is put in the input's place in a copy
    of its repository's tree and read there: the CSAR toscanini makes of a
    single file holds only the files toscanini read, and tosca-parser
    checks that the scripts a CSAR names are in it (it does not for a
    YAML file; corpus files name scripts their repository lacks) and finds
    some imports that are not beside the importing file elsewhere in the
    tree; neither is a question of the written-back text."""
    if zipfile.is_zipfile(os.path.join(corpus, name)):
        return accepts(out)
    source = name.split("/")[0]
    tree = os.path.join(work, os.path.basename(out) + ".tree")
    shutil.copytree(os.path.join(corpus, source), os.path.join(tree, source))
    with zipfile.ZipFile(out) as z:
        text = z.read(entry_of(out))
    with open(os.path.join(tree, name), "wb") as f:
        f.write(text)
    return accepts(os.path.join(tree, name))


def declared_version(path):
    """The tosca_definitions_version of a YAML file or a CSAR's entry."""
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            meta = z.read("TOSCA-Metadata/TOSCA.meta").decode()
            entry = re.search(r"Entry-Definitions:\s*(\S+)", meta).group(1)
            text = z.read(entry).decode(errors="replace")
    else:
        with open(path, errors="replace") as f:
            text = f.read()
    m = re.search(r"^tosca_definitions_version:\s*(\S+)", text, re.M)
    return m.group(1) if m else None


def plan(toscanini, source, out):
    """Plan `source` into `out`; None on success, else toscanini's stderr."""
    r = subprocess.run(
        [toscanini, "plan", source, "-o", out, "--lang", "all", "--quiet"],
        capture_output=True,
        text=True,
    )
    return None if r.returncode == 0 else r.stderr.strip() or f"exit {r.returncode}"


def entry_of(csar):
    with zipfile.ZipFile(csar) as z:
        meta = z.read("TOSCA-Metadata/TOSCA.meta").decode()
    return re.search(r"Entry-Definitions:\s*(\S+)", meta).group(1)


def with_workflows(csar, broken):
    """Copy `csar` to `broken` with a workflow section added to its entry,
    as a write-back that ignores the version would (1.3 grammar)."""
    entry = entry_of(csar)
    with zipfile.ZipFile(csar) as src, zipfile.ZipFile(broken, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == entry:
                text = data.decode()
                text = re.sub(
                    r"^topology_template:\n",
                    "topology_template:\n  workflows:\n    deploy:\n      implementation:\n"
                    "        primary:\n          file: plans/deploy.zip\n",
                    text,
                    count=1,
                    flags=re.M,
                )
                data = text.encode()
            dst.writestr(item, data)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    toscanini, corpus = sys.argv[1], sys.argv[2]
    inputs = listed(os.path.join(HERE, "inputs.txt"))
    rejected = set(listed(os.path.join(HERE, "..", "corpus-yaml-rejected.txt")))
    failures = 0

    def fail(message):
        nonlocal failures
        failures += 1
        print(f"FAIL {message}")

    # The list covers every corpus item of these versions that both read.
    with open(os.path.join(corpus, "..", "manifest.json")) as f:
        manifest = json.load(f)
    for item in manifest["yaml"]:
        name = item["source"] + "/" + item["entry"]
        path = os.path.join(corpus, name)
        if name in inputs or name in rejected or not os.path.exists(path):
            continue
        if declared_version(path) in VERSIONS and accepts(path) is None:
            fail(f"{name}: tosca-parser accepts it; add it to tests/tosca-parser/inputs.txt")

    work = tempfile.mkdtemp(prefix="tosca-parser-check-")
    first_out = None
    for name in inputs:
        path = os.path.join(corpus, name)
        if not os.path.exists(path):
            fail(f"{name}: missing from the corpus")
            continue
        why = accepts(path)
        if why is not None:
            fail(f"{name}: tosca-parser no longer accepts the input: {why}")
            continue
        out = os.path.join(work, name.replace("/", "_") + ".csar")
        why = plan(toscanini, path, out)
        if why is not None:
            fail(f"{name}: toscanini failed: {why}")
            continue
        with zipfile.ZipFile(out) as z:
            plans = [n for n in z.namelist() if n.startswith("plans/") and n.endswith(".zip")]
        if not plans:
            fail(f"{name}: the output has no plan archives under plans/")
            continue
        why = reread(corpus, name, out, work)
        if why is not None:
            fail(f"{name}: tosca-parser rejects the written-back template: {why}")
            continue
        first_out = first_out or (name, out)
        print(f"ok   {name} ({declared_version(path)}, {len(plans)} plan archives)")

    # Self-test: a 1.0 write-back with workflows must be rejected.
    if first_out is None:
        fail("self-test: no written-back CSAR to break")
    else:
        name, out = first_out
        broken = os.path.join(work, "broken.csar")
        with_workflows(out, broken)
        if reread(corpus, name, broken, work) is None:
            fail("self-test: tosca-parser accepts a 1.0 template with `workflows`; the check proves nothing")
        else:
            print("ok   self-test: a 1.0 write-back with `workflows` is rejected")

    checked = len(inputs)
    print(f"tosca-parser: {checked} inputs, {failures} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
