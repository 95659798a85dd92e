// toscanini helpers. Variables are read through the script bindings, which
// reach the process variables in every context (tasks, input and output
// mappings), so v() never fails on an unset variable.
def v = { String n -> def b = binding.variables; def x = b.containsKey(n) ? b.get(n) : null; x == null ? '' : x.toString() }
// Set a process variable (the plans set thousands when they start).
def setv = { String n, Object val -> execution.setVariable(n, val) }
def x = { s -> s == null ? '' : s.toString().replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;').replace('"', '&quot;').replace("'", '&apos;') }
def q = { s -> s == null ? 'null' : '"' + s.toString().replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n').replace('\r', '\\r').replace('\t', '\\t') + '"' }
def fail = { String m ->
  // A BPMN error, so that the error events of the plan catch it (Camunda 7 or Operaton).
  def cl = Thread.currentThread().contextClassLoader ?: this.class.classLoader
  def c = ['org.camunda.bpm.engine.delegate.BpmnError', 'org.operaton.bpm.engine.delegate.BpmnError'].findResult { n -> try { cl.loadClass(n) } catch (Throwable t) { null } }
  throw c.newInstance('ToscaniniFailure', m)
}
def check = { String task -> def s = binding.variables.get('statusCode'); if (s == null || (s as int) < 200 || (s as int) > 299) fail(task + ': HTTP ' + s + ': ' + binding.variables.get('response')); s as int }
def body = { def r = binding.variables.get('response'); r == null ? '' : r.toString() }
def jstr = { String text, String key ->
  def m = (text =~ ('"' + java.util.regex.Pattern.quote(key) + '"\\s*:\\s*"((?:[^"\\\\]|\\\\.)*)"'))
  if (!m.find()) return null
  m.group(1).replaceAll('\\\\u([0-9a-fA-F]{4})') { all, h -> new String(Character.toChars(Integer.parseInt(h, 16))) }.replace('\\n', '\n').replace('\\t', '\t').replace('\\r', '\r').replace('\\/', '/').replace('\\"', '"').replace('\\\\', '\\')
}
def jnum = { String text, String key -> def m = (text =~ ('"' + java.util.regex.Pattern.quote(key) + '"\\s*:\\s*"?([0-9]+)')); def all = []; while (m.find()) all << m.group(1); all }
def url = { String text -> def m = (text =~ '<(?:\\w+:)?url>([^<]*)</'); (m.find() ? m.group(1) : text.trim().replaceAll('^"|"$', '')).trim() }
def last = { String u -> def p = u.replaceAll('/+$', '').split('/'); p.length == 0 ? '' : p[-1] }
def num = { s -> try { new BigDecimal(s.toString().trim()) } catch (Exception e) { null } }
def dec = { s, String f ->
  // A number a function of the plan computes with (TOSCA 2.0 chapter 10): anything else fails the plan.
  def r = num(s == null ? '' : s)
  if (r == null) fail('$' + f + ': `' + s + '` is not a number')
  r
}
def cmp = { s, String op, String b ->
  // A value compared with a number (workflow conditions); false when either is no number.
  def l = num(s); def r = num(b)
  if (l == null || r == null) return false
  def c = l <=> r
  op == '>' ? c > 0 : op == '>=' ? c >= 0 : op == '<' ? c < 0 : op == '<=' ? c <= 0 : c == 0
}
