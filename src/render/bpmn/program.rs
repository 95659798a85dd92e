//! An activity whose steps are calls of the reusable processes, one after
//! the other, as one call of `toscanini_run` (`templates/bpmn/library.bpmn`):
//! the steps become the lines of its `steps` text, and the variables they
//! read and set are passed in and out once, as `v:<name>`. The activity is
//! then one call activity in the plan instead of a subprocess with a
//! diagram of its own: the plan says each call once, in the library.
//!
//! Like a function's parameters, the variables are numbered in the call:
//! the mapping `<camunda:in source="prop_vm_0_VMIP" target="v:3"/>` names
//! the plan's variable once, and the steps read `$(3)`. Only the variables
//! every plan sets keep their names (an `invoke` line takes some of them
//! by default). A plan variable's name is often 30 characters and more,
//! and a call reads a dozen: written twice more, they were a tenth of a
//! plan.
//!
//! In: the plane of an activity (or of its compensation handler) and its
//! text. Out: the call, or `None` where a step is more than a call (a
//! script, a gateway, a value only Groovy computes), which keeps the
//! subprocess.

use super::graph::{Call, In, Kind, Plane, Script, Text, Value};
use super::groovy::Part;
use super::library::{DEFAULTS, LOAD, PROPERTIES, RUN, RUN_STEPS, number};
use super::scripts::Shared;

/// The call of `toscanini_run` that does what `plane` does, if its steps
/// are all calls (and the storing of an operation's outputs) in one line.
/// With `mark`, the name of the variable holding the URL of the
/// activity's instance, the call marks that instance ERROR when a step
/// fails (the service instance while the variable is unset) and ends with
/// the activity error: it is passed `mark` and both URL variables (unless
/// a step sets them). `None` also where that name is no constant JUEL
/// can pass. The variables numbered first, in this order (`1`, `2`, …:
/// [`number`]) whether the steps use them or not: `mark`'s, then those
/// of `first`.
pub(super) fn compact(
    plane: &Plane,
    text: &mut Text,
    mark: Option<&str>,
    first: &[&str],
) -> Option<Call> {
    let steps = straight(plane)?;
    let mut program = Program::default();
    for name in mark.iter().chain(first) {
        program.short(name);
    }
    for (k, kind) in steps.iter().enumerate() {
        if k > 0 {
            program.steps.push('\n');
        }
        match kind {
            Kind::Call(c) => program.call(c, text)?,
            Kind::Script(s) => program.outputs(s, text)?,
            _ => return None,
        }
    }
    if let Some(url) = mark {
        program.read(url);
        program.read("serviceInstanceURL");
    }
    let marked = mark.map(|url| program.short(url));
    let mut call = program.into_call(text);
    if let Some(url) = marked {
        super::calls::pass(text, &mut call, "mark", &[Part::Lit(&url)]);
        if !call.locals.is_empty() {
            return None;
        }
    }
    Some(call)
}

/// The kinds of the nodes between the start and the end event of a plane
/// that is one line of nodes (every flow from a node to the next, without
/// a condition); `None` for any other plane.
fn straight(plane: &Plane) -> Option<Vec<&Kind>> {
    let n = plane.nodes.len();
    let first = plane.nodes.first()?;
    let last = plane.nodes.last()?;
    let line = plane.flows.len() + 1 == n
        && plane.associations.is_empty()
        && plane
            .flows
            .iter()
            .enumerate()
            .all(|(k, f)| f.from() == k && f.to() == k + 1 && f.condition.is_none());
    let ends = matches!(first.kind, Kind::Start(None)) && matches!(last.kind, Kind::End(None));
    (line && ends && n > 2).then(|| plane.nodes[1..n - 1].iter().map(|x| &x.kind).collect())
}

/// The `names` a call of [`LOAD`] or [`PROPERTIES`] need not pass in its
/// line: its `prop:<name>` fields, in order, comma separated (what
/// `run-step.groovy` passes where a line has no `names`).
fn listed_names(c: &Call, text: &Text) -> Option<String> {
    let fields: Vec<&str> = match c.process {
        LOAD => c
            .outs
            .iter()
            .filter_map(|(from, _)| match from {
                In::Var(v) => Some(text.get(*v)),
                In::Expr(_) => None,
            })
            .collect(),
        PROPERTIES => c.ins.iter().map(|(target, _)| text.get(*target)).collect(),
        _ => return None,
    };
    let names: Vec<&str> = fields
        .iter()
        .filter_map(|f| f.strip_prefix("prop:"))
        .collect();
    Some(names.join(","))
}

/// Whether a variable keeps its name in the steps: one every plan sets
/// (the defaults of an `invoke` line are among them).
fn named(name: &str) -> bool {
    super::ctx::FIXED.contains(&name) || name == super::library::BUS
}

/// The `steps` text being written, and the variables it reads and sets.
#[derive(Default)]
struct Program {
    steps: String,
    /// Every variable the steps name, numbered by position ([`number`]),
    /// but those that keep their names ([`named`]).
    numbered: Vec<String>,
    reads: Vec<String>,
    sets: Vec<String>,
    /// Variables only an `outputs` line of this program reads (an
    /// operation's answer): not passed out.
    answers: Vec<String>,
}

impl Program {
    /// A line calling `c`'s process.
    fn call(&mut self, c: &Call, text: &Text) -> Option<()> {
        // (An activity that calls any other process stays a subprocess.)
        if !c.locals.is_empty() || !RUN_STEPS.contains(&c.process) {
            return None;
        }
        self.steps.push_str(c.process.strip_prefix("toscanini_")?);
        let listed = listed_names(c, text);
        for (target, value) in &c.ins {
            if self.by_default(c.process, text.get(*target), *value, text) {
                continue;
            }
            if matches!(value, In::Expr(e) if text.get(*target) == "names" && Some(text.get(*e)) == listed.as_deref())
            {
                continue;
            }
            self.steps.push(' ');
            push_escaped(&mut self.steps, text.get(*target));
            self.steps.push('=');
            self.value(*value, text)?;
        }
        for (from, var) in &c.outs {
            let In::Var(from) = from else {
                return None;
            };
            let var = text.get(*var);
            self.steps.push(' ');
            let short = self.short(var);
            push_escaped(&mut self.steps, &short);
            self.steps.push('<');
            push_escaped(&mut self.steps, text.get(*from));
            add(&mut self.sets, var);
        }
        Some(())
    }

    /// Whether `field` of a call of `process` is `value` by default
    /// ([`DEFAULTS`]): it is then read without being written.
    fn by_default(&mut self, process: &str, field: &str, value: In, text: &Text) -> bool {
        let In::Var(v) = value else {
            return false;
        };
        let var = text.get(v);
        let default = DEFAULTS.contains(&(process, field, self.short(var).as_str()));
        if default {
            self.read(var);
        }
        default
    }

    /// A line storing the outputs of an operation's answer (the script
    /// task `operation-result.groovy` with its locals).
    fn outputs(&mut self, s: &Script, text: &Text) -> Option<()> {
        if s.script != Value::Shared(Shared::OperationResult) {
            return None;
        }
        self.steps.push_str("outputs");
        for (name, value) in &s.locals {
            let (name, Value::Text(value)) = (text.get(*name), value) else {
                return None;
            };
            self.steps.push(' ');
            push_escaped(&mut self.steps, name);
            self.steps.push('=');
            if name == "result" {
                let juel = text.get(*value);
                self.juel(juel)?;
                if let Some(v) = juel.strip_prefix("${").and_then(|v| v.strip_suffix('}')) {
                    add(&mut self.answers, v);
                }
            } else {
                // The name of the variable that receives the output.
                let var = text.get(*value);
                let short = self.short(var);
                push_escaped(&mut self.steps, &short);
                add(&mut self.sets, var);
            }
        }
        Some(())
    }

    /// A value passed in: a variable, or JUEL text of literals and variables.
    fn value(&mut self, value: In, text: &Text) -> Option<()> {
        match value {
            In::Var(v) => {
                self.var(text.get(v));
                Some(())
            }
            In::Expr(e) => self.juel(text.get(e)),
        }
    }

    /// JUEL text with `${name}` parts (what [`super::expr::concat`]
    /// writes); `None` for any other expression.
    fn juel(&mut self, mut juel: &str) -> Option<()> {
        while let Some(at) = juel.find("${") {
            push_escaped(&mut self.steps, &juel[..at]);
            let rest = &juel[at + 2..];
            let end = rest.find('}')?;
            let name = &rest[..end];
            if !super::groovy::juel_ident(name) {
                return None;
            }
            self.var(name);
            juel = &rest[end + 1..];
        }
        push_escaped(&mut self.steps, juel);
        Some(())
    }

    fn var(&mut self, name: &str) {
        self.steps.push_str("$(");
        let short = self.short(name);
        push_escaped(&mut self.steps, &short);
        self.steps.push(')');
        self.read(name);
    }

    /// The name variable `name` has in the steps: its number, or itself
    /// where it keeps its name.
    fn short(&mut self, name: &str) -> String {
        if named(name) {
            return name.to_string();
        }
        let k = match self.numbered.iter().position(|n| n == name) {
            Some(k) => k,
            None => {
                self.numbered.push(name.to_string());
                self.numbered.len() - 1
            }
        };
        number(k)
    }

    /// Variable `name` is read: passed in, unless a step before set it
    /// (then it is the program's own).
    fn read(&mut self, name: &str) {
        if !self.sets.iter().any(|s| s == name) {
            add(&mut self.reads, name);
        }
    }

    /// The call of `toscanini_run`: the steps, then every variable read
    /// passed in and every variable set (but an answer only this program
    /// reads) passed out.
    fn into_call(mut self, text: &mut Text) -> Call {
        let mut ins = Vec::new();
        for (k, part) in parts(&self.steps).enumerate() {
            let target = match k {
                0 => text.add("steps"),
                k => text.fmt(format_args!("steps:{}", k + 1)),
            };
            ins.push((target, In::Expr(text.add(part))));
        }
        for r in std::mem::take(&mut self.reads) {
            let target = text.fmt(format_args!("v:{}", self.short(&r)));
            ins.push((target, In::Var(text.add(&r))));
        }
        let mut outs = Vec::new();
        for s in std::mem::take(&mut self.sets) {
            if self.answers.contains(&s) {
                continue;
            }
            let from = text.fmt(format_args!("v:{}", self.short(&s)));
            outs.push((In::Var(from), text.add(&s)));
        }
        Call {
            process: RUN,
            locals: Vec::new(),
            ins,
            outs,
        }
    }
}

/// The longest text a variable of the engine holds as a string: Camunda
/// 7 and Operaton store one in a column of 4,000 characters, 2,000 on
/// Oracle.
const PART: usize = 2_000;

/// `steps` in pieces of at most [`PART`] characters, cut anywhere (the
/// pieces are joined again before they are read).
fn parts(steps: &str) -> impl Iterator<Item = &str> {
    let mut rest = steps;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = rest
            .char_indices()
            .nth(PART)
            .map_or(rest.len(), |(at, _)| at);
        let (part, tail) = rest.split_at(end);
        rest = tail;
        Some(part)
    })
}

/// Add `name` to `list` unless it is there (a program reads a few dozen
/// variables at most).
fn add(list: &mut Vec<String>, name: &str) {
    if !list.iter().any(|x| x == name) {
        list.push(name.to_string());
    }
}

/// Append `s` with the characters the `steps` syntax reserves as `%XX`
/// (`$`, `#` and `\` also because JUEL reads the text first).
fn push_escaped(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    // Runs between escapes are copied whole; every escaped character is
    // ASCII, so a run ends at a character boundary.
    let mut last = 0;
    for (i, b) in s.bytes().enumerate() {
        if matches!(
            b,
            b' ' | b'%' | b'$' | b'#' | b'\\' | b'=' | b'<' | b')' | b'\n' | b'\r' | b'\t'
        ) {
            out.push_str(&s[last..i]);
            out.push('%');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 15)]));
            last = i + 1;
        }
    }
    out.push_str(&s[last..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plane of one call of `process` passing `state=CREATED`.
    fn one_call(text: &mut Text, process: &'static str) -> Plane {
        let mut plane = Plane::new(text.add("a"));
        let start = plane.add(text.add("a_start"), text.add(""), Kind::Start(None));
        let mut call = super::super::calls::call(process);
        call.ins
            .push((text.add("state"), In::Expr(text.add("CREATED"))));
        let step = plane.add(text.add("a_s1"), text.add(""), Kind::Call(Box::new(call)));
        let end = plane.add(text.add("a_end"), text.add(""), Kind::End(None));
        plane.connect(start, step);
        plane.connect(step, end);
        plane
    }

    #[test]
    fn only_calls_toscanini_run_can_make_are_compacted() {
        let mut text = Text::default();
        let plane = one_call(&mut text, super::super::library::STATE);
        let call = compact(&plane, &mut text, None, &[]).expect("a call of toscanini_state");
        assert_eq!(call.process, RUN);
        let In::Expr(steps) = call.ins[0].1 else {
            panic!("steps are text");
        };
        assert_eq!(text.get(steps), "state state=CREATED");
        // toscanini_mark is no step of toscanini_run: the subprocess stays.
        let plane = one_call(&mut text, super::super::library::MARK);
        assert!(compact(&plane, &mut text, None, &[]).is_none());
    }

    #[test]
    fn the_first_variable_is_the_one_a_state_line_takes_by_default() {
        assert!(DEFAULTS.contains(&(super::super::library::STATE, "url", number(0).as_str())));
    }

    #[test]
    fn reserved_characters_are_escaped() {
        let mut out = String::new();
        push_escaped(&mut out, "a b%c$d#e=f<g)h\ni");
        assert_eq!(out, "a%20b%25c%24d%23e%3Df%3Cg%29h%0Ai");
    }

    #[test]
    fn long_steps_are_cut_into_parts_of_what_a_variable_holds() {
        let steps = "é".repeat(PART + 1);
        let cut: Vec<&str> = parts(&steps).collect();
        assert_eq!(cut.len(), 2);
        assert_eq!(cut[0].chars().count(), PART);
        assert_eq!(cut.concat(), steps);
        assert_eq!(parts("a").collect::<Vec<_>>(), ["a"]);
    }

    #[test]
    fn juel_text_becomes_references() {
        let mut p = Program::default();
        p.juel("${serviceTemplateURL}/nodetemplates/a b/instances")
            .unwrap();
        assert_eq!(
            p.steps,
            "$(serviceTemplateURL)/nodetemplates/a%20b/instances"
        );
        assert_eq!(p.reads, ["serviceTemplateURL"]);
        assert!(Program::default().juel("${empty x ? a : b}").is_none());
    }
}
