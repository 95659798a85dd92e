#!/usr/bin/env python3
"""Run every Groovy script of BPMN plans once, outside any engine.

    check-groovy.py [--only PREFIX] FILE.bpmn...

No Camunda engine can run here, so this is the next best check of the
scripts the plans carry (connector input/output mappings, script tasks,
subprocess variables): each one is evaluated by Groovy with a binding that
stands in for the engine's (process variables, `execution`, and an HTTP
response with status 200; the plan instance URL is a server on loopback
that answers 200), so syntax errors, misspelt helpers and type
errors show up. A script may end in the plan's BPMN error; nothing else may
go wrong.

Scripts are inline (`<camunda:script>`, `<script>`) or shared files of the
plan archive, referenced as `resource="deployment://FILE"` (connector
mappings) or `camunda:resource="deployment://FILE"` (script tasks); the
deployment is the directory of the .bpmn file, and every reference must
name a file there. A script task's input mapping becomes its local
variables (`${name}` reads a variable, as JUEL would; other text is the
value). Every shared file is run at least once, and every .groovy file of
the deployment must be referenced. Needs `groovy` (Debian package
groovy). Stdlib only.

With `--only PREFIX`, only the scripts of elements whose id starts with
PREFIX run (and unreferenced files are not reported): e.g. the chain of
variable initialisation scripts of a plan too large to run every script of.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

CAMUNDA = "{http://camunda.org/schema/1.0/bpmn}"
BPMN = "{http://www.omg.org/spec/BPMN/20100524/MODEL}"
DEPLOYMENT = "deployment://"

HARNESS = r'''
def input = new groovy.json.JsonSlurper().parse(new File(args[0]), 'UTF-8')
def scripts = input.scripts
def seeds = input.seeds
def response = '{"status":"DONE","response":{"VMIP":"10.0.0.1"},"node_template_instances":[{"id":5},{"id":6}],"relationship_template_instances":[{"id":3,"target_node_template_instance_id":7}]}'
// The container's plan instance API (plan-log.groovy posts to it): 200 to anything.
def server = com.sun.net.httpserver.HttpServer.create(new InetSocketAddress('127.0.0.1', 0), 0)
server.createContext('/') { ex -> ex.requestBody.bytes; ex.sendResponseHeaders(200, -1); ex.close() }
server.start()
def container = "http://127.0.0.1:${server.address.port}"
int bad = 0
scripts.eachWithIndex { s, i ->
  def vars = [statusCode: 200, response: response,
              headers: ['Location': '/ManagementBus/v1/invoker/activeRequests/1'],
              csarEntrypoint: 'http://container:1337/csars/app.csar',
              instanceDataAPIUrl: 'http://container:1337/csars/app.csar/servicetemplates/st/instances',
              OpenTOSCAContainerAPIServiceInstanceURL: 'http://container:1337/csars/app.csar/servicetemplates/st/instances/9',
              ManagementBusURL: 'http://container:8086/ManagementBus/v1/invoker',
              serviceTemplateURL: 'http://container:1337/csars/app.csar/servicetemplates/st',
              serviceInstanceID: '9', serviceInstanceURL: 'http://container:1337/csars/app.csar/servicetemplates/st/instances/9',
              planInstanceURL: container + '/csars/app.csar/servicetemplates/st/buildplans/p/instances/c',
              // toscanini_run's steps (a state, then an operation's outputs) and toscanini_each's list.
              steps: 'state url=$(inst_a_url)/x%20y state=CREATING\noutputs result=$(r) output:VMIP=prop_a_VMIP',
              'v:inst_a_url': 'http://container:1337/i/1', 'v:r': response,
              ids: '5,6', list: 'http://container:1337/i?serviceInstanceId=9']
  seeds.each { k, v -> if (!vars.containsKey(k)) vars[k] = v }
  // Local variables of the task: `${name}` reads a variable (the answer
  // when the plan has not set it here), other text is the value.
  def locals = [:]
  s.locals.each { k, v ->
    def m = (v =~ /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/)
    locals[k] = m.matches() ? (vars.containsKey(m.group(1)) ? vars[m.group(1)] : response) : v
  }
  vars.putAll(locals)
  // A listener of the processes toscanini_run and toscanini_each logs for
  // the activity whose call (the super execution) started it.
  def library = s.owner in ['toscanini_run', 'toscanini_each']
  def caller = new Expando(currentActivityId: 'app_provision', getVariable: { n -> vars[n] },
                           bpmnModelElementInstance: null)
  vars.execution = new Expando(setVariable: { n, v -> vars[n] = v }, getVariable: { n -> vars[n] },
                               removeVariable: { n -> if (n != 'execution') vars.remove(n) },
                               currentActivityId: s.owner, variablesLocal: locals, variables: vars,
                               processDefinitionId: (library ? s.owner : 'plan') + ':1:1',
                               superExecution: library ? caller : null,
                               eventName: 'start', canceled: false)
  try {
    new GroovyShell(new Binding(vars)).evaluate(s.text)
  } catch (Throwable t) {
    // Outside the engine the BPMN error class is missing: fail() then ends in a
    // NullPointerException at newInstance, which stands for the BPMN error.
    if (!(t instanceof NullPointerException && s.text.contains('def fail'))) {
      bad++
      println "script ${s.name}: ${t}"
    }
  }
}
server.stop(0)
println "check-groovy: ${scripts.size() - bad} scripts ran, ${bad} failed"
System.exit(bad == 0 ? 0 : 1)
'''


def resource(path, ref, problems, where):
    """The text of a deployment resource, or None (a problem noted)."""
    if not ref.startswith(DEPLOYMENT):
        problems.append(f"{where}: resource `{ref}` is not a deployment resource")
        return None
    name = ref[len(DEPLOYMENT):]
    file = os.path.join(os.path.dirname(path), name)
    if "/" in name or not os.path.isfile(file):
        problems.append(f"{where}: `{ref}` names no file of the deployment")
        return None
    with open(file, encoding="utf-8") as f:
        return f.read()


def task_locals(task):
    """A task's input mapping: name -> text (scripts are left out)."""
    out = {}
    ext = task.find(BPMN + "extensionElements")
    io = ext.find(CAMUNDA + "inputOutput") if ext is not None else None
    if io is not None:
        for p in io.findall(CAMUNDA + "inputParameter"):
            if len(p) == 0:
                out[p.get("name")] = (p.text or "").strip()
    return out


def main(files, only=None):
    scripts, problems = [], []
    referenced = {}  # deployment dir -> set of file names
    for f in files:
        base = os.path.basename(f)
        deployment = os.path.dirname(os.path.abspath(f))
        used = referenced.setdefault(deployment, set())
        root = ET.parse(f).getroot()
        parents = {c: p for p in root.iter() for c in p}

        def owner_of(e):
            o = e
            while o is not None and o.get("id") is None:
                o = parents.get(o)
            return o.get("id") if o is not None else "?"

        for e in root.iter():
            text, ref, local = None, None, {}
            if e.tag == CAMUNDA + "script":
                ref = e.get("resource")
                text = e.text or ""
            elif e.tag == BPMN + "script":
                text = e.text or ""
            elif e.tag == BPMN + "scriptTask" and e.get(CAMUNDA + "resource"):
                ref = e.get(CAMUNDA + "resource")
                local = task_locals(e)
            else:
                continue
            owner = owner_of(e)
            if only is not None and not owner.startswith(only):
                continue
            if ref is not None:
                text = resource(f, ref, problems, f"{base}#{owner}")
                if text is None:
                    continue
                used.add(ref[len(DEPLOYMENT):])
            if e.tag == BPMN + "script":
                local = task_locals(parents[e])
            scripts.append({"text": text, "name": f"{base}#{owner}" + (f" ({ref})" if ref else ""),
                            "owner": owner, "locals": local})
    for deployment, used in referenced.items() if only is None else []:
        for name in sorted(os.listdir(deployment)):
            if name.endswith(".groovy") and name not in used:
                problems.append(f"{deployment}: {name} is referenced by no task")
    for p in problems:
        print(f"check-groovy: {p}")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "check.groovy")
        # Loop variables the engine sets before a loop turn reads them.
        seeds = {}
        for s in scripts:
            for name in re.findall(r"v\('([A-Za-z0-9_]+)'\)", s["text"]):
                if name.endswith("_index"):
                    seeds[name] = 0
                elif name.endswith("_ids"):
                    seeds[name] = "5,6"
        data = os.path.join(d, "scripts.json")
        with open(data, "w", encoding="utf-8") as out:
            json.dump({"scripts": scripts, "seeds": seeds}, out)
        with open(path, "w", encoding="utf-8") as out:
            out.write(HARNESS)
        code = subprocess.run(["groovy", path, data]).returncode
    return 1 if problems or code != 0 else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    only = None
    if args[:1] == ["--only"] and len(args) > 1:
        only, args = args[1], args[2:]
    if not args:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(args, only))
