#!/usr/bin/env python3
"""Run every Groovy script of BPMN plans once, outside any engine.

    check-groovy.py FILE.bpmn...

No Camunda engine can run here, so this is the next best check of the
scripts the plans carry (connector input/output mappings, script tasks,
subprocess variables): each one is evaluated by Groovy with a binding that
stands in for the engine's (process variables, `execution`, and an HTTP
response with status 200), so syntax errors, misspelt helpers and type
errors show up. A script may end in the plan's BPMN error; nothing else may
go wrong. Needs `groovy` (Debian package groovy). Stdlib only.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

SCRIPT_TAGS = ("{http://camunda.org/schema/1.0/bpmn}script",
               "{http://www.omg.org/spec/BPMN/20100524/MODEL}script")

HARNESS = r'''
def response = '{"status":"DONE","response":{"VMIP":"10.0.0.1"},"node_template_instances":[{"id":5},{"id":6}],"relationship_template_instances":[{"id":3,"target_node_template_instance_id":7}]}'
int bad = 0
scripts.eachWithIndex { s, i ->
  def vars = [statusCode: 200, response: response,
              headers: ['Location': '/ManagementBus/v1/invoker/activeRequests/1'],
              csarEntrypoint: 'http://container:1337/csars/app.csar',
              instanceDataAPIUrl: 'http://container:1337/csars/app.csar/servicetemplates/st/instances',
              OpenTOSCAContainerAPIServiceInstanceURL: 'http://container:1337/csars/app.csar/servicetemplates/st/instances/9',
              ManagementBusURL: 'http://container:8086/ManagementBus/v1/invoker',
              serviceTemplateURL: 'http://container:1337/csars/app.csar/servicetemplates/st',
              serviceInstanceID: '9', serviceInstanceURL: 'http://container:1337/csars/app.csar/servicetemplates/st/instances/9']
  seeds.each { k, v -> if (!vars.containsKey(k)) vars[k] = v }
  vars.execution = [setVariable: { n, v -> vars[n] = v }, getVariable: { n -> vars[n] }] as Expando
  try {
    new GroovyShell(new Binding(vars)).evaluate(s)
  } catch (Throwable t) {
    // Outside the engine the BPMN error class is missing: fail() then ends in a
    // NullPointerException at newInstance, which stands for the BPMN error.
    def trace = t.stackTrace*.toString().join(' ')
    if (!(t instanceof NullPointerException && s.contains('def fail'))) {
      bad++
      println "script ${names[i]}: ${t}"
    }
  }
}
println "check-groovy: ${scripts.size() - bad} scripts ran, ${bad} failed"
System.exit(bad == 0 ? 0 : 1)
'''


def main(files):
    scripts, names = [], []
    for f in files:
        root = ET.parse(f).getroot()
        parents = {c: p for p in root.iter() for c in p}
        for e in root.iter():
            if e.tag in SCRIPT_TAGS:
                owner = e
                while owner is not None and owner.get("id") is None:
                    owner = parents.get(owner)
                scripts.append(e.text or "")
                names.append(f"{os.path.basename(f)}#{owner.get('id') if owner is not None else '?'}")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "check.groovy")
        # Loop variables the engine sets before a loop turn reads them.
        seeds = {}
        for s in scripts:
            for name in re.findall(r"v\('([A-Za-z0-9_]+)'\)", s):
                if name.endswith("_index"):
                    seeds[name] = "0"
                elif name.endswith("_ids"):
                    seeds[name] = "'5,6'"
        with open(path, "w", encoding="utf-8") as out:
            # JSON string literals are valid Groovy double-quoted strings once `$` is escaped.
            out.write("def scripts = [\n" + ",\n".join(json.dumps(s).replace("$", "\\$") for s in scripts) + "]\n")
            out.write("def names = [\n" + ",\n".join(json.dumps(n).replace("$", "\\$") for n in names) + "]\n")
            out.write("def seeds = [" + (", ".join(f"'{k}': {v}" for k, v in sorted(seeds.items())) or ":") + "]\n")
            out.write(HARNESS)
        return subprocess.run(["groovy", path]).returncode


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
