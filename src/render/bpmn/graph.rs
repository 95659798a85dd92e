//! A small in-memory BPMN model: planes of flow nodes and sequence flows.
//! The backend builds it from a concrete plan, [`super::layout`] places
//! it, [`super::xml`] writes it. Keeping structure apart from text lets
//! the layout and the tests reason about the graph (incoming flows,
//! gateways) instead of parsing XML.
//!
//! Nodes and flows refer to each other by their index in the plane, so
//! every question the layout and the writer ask (what flows leave this
//! node, which node is the host of this boundary event) is answered in
//! constant time from [`Adjacency`], never by a scan of the plane.

use std::cell::OnceCell;
use std::fmt::Write as _;

use super::scripts::{PropertyFiles, Shared};

/// A piece of a plan's [`Text`] (eight bytes: a plan has a few of them
/// per element, and hundreds of thousands of elements).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Str {
    start: u32,
    end: u32,
}

/// A position in a [`Text`] or an index of a plane, stored in 32 bits.
/// A plan's model over 4 GiB of text or 4 billion elements would not fit
/// in memory long before that, so passing it is a bug, not an input error.
pub(crate) fn small(n: usize) -> u32 {
    u32::try_from(n).expect("BPMN model: an index or text position over 32 bits")
}

impl Str {}

/// The text of a plan's model (ids, labels, values) in one buffer, so that
/// building the model does not allocate per element.
#[derive(Debug, Default)]
pub(crate) struct Text {
    buf: String,
}

impl Text {
    /// Add a piece of text.
    pub(crate) fn add(&mut self, s: &str) -> Str {
        self.build(|buf| buf.push_str(s))
    }

    /// Add formatted text.
    pub(crate) fn fmt(&mut self, args: std::fmt::Arguments) -> Str {
        self.build(|buf| {
            let _ = buf.write_fmt(args);
        })
    }

    /// Add text written by `f` into the buffer.
    pub(crate) fn build(&mut self, f: impl FnOnce(&mut String)) -> Str {
        let start = small(self.buf.len());
        f(&mut self.buf);
        Str {
            start,
            end: small(self.buf.len()),
        }
    }

    /// Forget every piece, keeping the buffer (the text of one deferred
    /// subprocess after another).
    pub(crate) fn clear(&mut self) {
        self.buf.clear();
    }

    /// Give back the room the buffer grew into and does not use (a plan's
    /// text is kept while the plan is laid out and written).
    pub(crate) fn shrink_to_fit(&mut self) {
        self.buf.shrink_to_fit();
    }

    /// The text of a piece.
    pub(crate) fn get(&self, s: Str) -> &str {
        &self.buf[s.start as usize..s.end as usize]
    }
}

/// The value of a Camunda input or output parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Value {
    /// Text content: a constant or a JUEL expression (`${name}`), which
    /// Camunda evaluates against the variables in scope. Written escaped.
    Text(Str),
    /// An inline Groovy script; the helpers of the prelude it calls are
    /// put in front of it when it is written.
    Groovy(Str),
    /// A shared Groovy script of the plan archive (`deployment://…`).
    Shared(Shared),
    /// An inline Groovy script written when the writer reaches it, by
    /// [`Deferred::script`] with this key (the long scripts that set a
    /// large plan's variables).
    Later(u32),
}

/// An HTTP call made by a Camunda Connect `http-connector` service task.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Http {
    /// `GET`, `POST`, `PUT`.
    pub method: &'static str,
    /// The URL.
    pub url: Value,
    /// `Content-Type` of the payload, if any.
    pub content_type: Option<&'static str>,
    /// `Accept` header.
    pub accept: &'static str,
    /// The payload, if any.
    pub payload: Option<Value>,
    /// Output variables: name and value over `statusCode`, `response`, `headers`.
    pub outputs: Vec<(Str, Value)>,
}

/// A script task.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Script {
    /// The script: inline Groovy or a shared script.
    pub script: Value,
    /// Local variables of the task (its input mapping), which parameterise
    /// a shared script.
    pub locals: Vec<(Str, Value)>,
}

/// How a subprocess repeats.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Repeat {
    /// Runs once.
    Once,
    /// A compensation handler (`isForCompensation`).
    Compensation,
    /// An event subprocess started by an error (`triggeredByEvent`).
    OnError,
}

/// What a flow node is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Start event; `Some(error)` for the error start of an event subprocess.
    Start(Option<&'static str>),
    /// Error start event of an event subprocess that catches `error` (any
    /// error if `None`), with the variables that receive its code and
    /// message.
    ErrorStart {
        /// The error it catches.
        error: Option<&'static str>,
        /// The variable that receives the caught error's code, if any.
        code: Option<Str>,
        /// The variable that receives the caught error's message, if any.
        message: Option<Str>,
    },
    /// End event; `Some(error)` makes it an error end event throwing that error.
    End(Option<&'static str>),
    /// Service task calling a REST API through the HTTP connector.
    Http(Box<Http>),
    /// Script task (Groovy) computing variables, no remote call.
    Script(Box<Script>),
    /// Call activity: runs a reusable process of the plan's deployment.
    Call(Box<Call>),
    /// Subprocess.
    Sub(Box<Sub>),
    /// A collapsed subprocess whose content is built only when the writer
    /// reaches it, by [`Deferred::build`] with this key, and dropped once
    /// written: an activity or its compensation handler, so that the
    /// model of a plan never holds every activity's steps at once.
    Deferred(usize),
    /// Exclusive gateway; the index of its default flow, if it splits.
    Xor(Option<u32>),
    /// Parallel gateway.
    And,
    /// Intermediate throw event that compensates the completed activities of its scope.
    Compensate,
    /// Intermediate event without a definition: a named point of the flow
    /// (where an activity is skipped).
    Marker,
    /// Boundary event on node `host` (an index in the same plane): an
    /// error catch (interrupting) or a compensation.
    Boundary {
        /// The activity it is attached to.
        host: u32,
        /// `true`: catch-all error event; `false`: compensation event.
        error: bool,
        /// An error catch that routes the failure on into the plan graph
        /// (`on_failure`): what follows it is drawn as part of the graph,
        /// not below its host.
        routes: bool,
        /// The variable that receives the caught error's code, if any.
        code: Option<Str>,
        /// The variable that receives the caught error's message, if any.
        message: Option<Str>,
    },
}

/// A call of a reusable process (`templates/bpmn/library.bpmn`), which
/// sees only the variables passed in and gives back only those passed out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Call {
    /// The id of the process it calls.
    pub process: &'static str,
    /// Local variables of the call, computed before the variables are
    /// passed in (so that `ins` can pass them).
    pub locals: Vec<(Str, Value)>,
    /// Variables passed in: (variable of the callee, its value).
    pub ins: Vec<(Str, In)>,
    /// Variables passed out: (variable of the callee, or an expression
    /// evaluated in it; variable of the caller).
    pub outs: Vec<(In, Str)>,
}

/// The value of a variable a call passes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum In {
    /// A variable of the caller.
    Var(Str),
    /// A JUEL expression evaluated where the call is (text with `${name}`
    /// parts, or a constant).
    Expr(Str),
}

/// A subprocess: its own plane and how it runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Sub {
    /// Its content.
    pub plane: Plane,
    /// Drawn open inside its parent (`true`) or as a box with its own diagram.
    pub expanded: bool,
    /// Loop, compensation handler or event subprocess.
    pub repeat: Repeat,
    /// Local variables created when it starts.
    pub locals: Vec<(Str, Value)>,
    /// Output variables set when it ends.
    pub outputs: Vec<(Str, Value)>,
    /// Its start and end go into the plan instance's log (the plan's
    /// activities).
    pub logged: bool,
}

/// What a [`Kind::Deferred`] node is once built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Built {
    /// A collapsed subprocess.
    Sub(Sub),
    /// One call of `toscanini_run` or `toscanini_each` (an activity whose
    /// steps are all calls: [`super::program`]), a compensation handler if
    /// `repeat` says so; the called process writes the plan-log entries of
    /// an activity, not of a compensation handler.
    Call {
        /// The call.
        call: Call,
        /// [`Repeat::Once`] or [`Repeat::Compensation`].
        repeat: Repeat,
    },
    /// A task that does nothing (an activity without steps): logged
    /// unless the activity [does nothing](crate::plugins::ActivityBody::does_nothing)
    /// at all (its compensation, say, does something).
    Nothing {
        /// Whether the task writes its start and end to the plan log.
        logged: bool,
    },
}

/// Builds the content of [`Kind::Deferred`] subprocesses when the writer
/// reaches them.
pub(crate) trait Deferred {
    /// The subprocess `key`, its text added to `text` (empty when called)
    /// and its property scripts to `properties`. Keys are built in the
    /// order the writer meets them, which is the order of the plane.
    fn build(
        &mut self,
        key: usize,
        text: &mut Text,
        properties: &mut PropertyFiles,
    ) -> crate::error::Result<Built>;

    /// The body of the script [`Value::Later`] `key`, appended to `out`.
    fn script(&mut self, key: usize, out: &mut String);
}

/// A flow node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Node {
    /// Element id (an NCName, prefixed by its activity's id).
    pub id: Str,
    /// Label (empty: none).
    pub name: Str,
    /// What it is.
    pub kind: Kind,
}

/// A sequence flow. Its id is `<plane prefix>_f<n>`, `n` counting the
/// flows of the plane from 1 ([`Plane::flow_id`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Flow {
    from: u32,
    to: u32,
    /// JUEL condition, for flows out of an exclusive split.
    pub condition: Option<Str>,
    /// Label.
    pub name: &'static str,
    /// What taking it writes in the plan instance's log for the activity
    /// whose subprocess holds it (`plan-log.groovy`).
    pub log: FlowLog,
}

/// What taking a flow writes in the plan instance's log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FlowLog {
    /// Nothing.
    Nothing,
    /// The activity started: the flow (named `run`, which the script
    /// reads) enters its steps past the gateway that may skip them, so a
    /// skipped activity logs nothing, as its BPEL scope, never entered.
    Started,
    /// The flow leaves the error boundary event of a routed activity's
    /// steps: the activity's end is logged `cancelled`, as its BPEL
    /// scope's is, though the subprocess ends normally.
    Failed,
}

impl Flow {
    /// Source node index.
    pub(crate) fn from(&self) -> usize {
        self.from as usize
    }

    /// Target node index.
    pub(crate) fn to(&self) -> usize {
        self.to as usize
    }
}

/// An association from a compensation boundary event to its handler.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Association {
    /// Element id.
    pub id: Str,
    /// The boundary event (node index).
    pub from: usize,
    /// The handler (node index).
    pub to: usize,
}

/// A plane: what one process or subprocess contains.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Plane {
    /// Prefix of the ids of its flows: the id of the subprocess it is the
    /// content of (so flows inside an activity start with its id), or
    /// `plan` for the process.
    pub prefix: Str,
    /// Flow nodes, in creation order (which is also the reading order).
    pub nodes: Vec<Node>,
    /// Sequence flows.
    pub flows: Vec<Flow>,
    /// Associations from compensation boundary events to their handlers.
    pub associations: Vec<Association>,
    /// Incoming and outgoing flows, built on first use once the plane is complete.
    adjacency: OnceCell<Adjacency>,
}

impl Plane {
    /// An empty plane whose flows get ids starting with `prefix`.
    pub(crate) fn new(prefix: Str) -> Plane {
        Plane {
            prefix,
            ..Plane::default()
        }
    }

    /// Write the id of flow `k`.
    pub(crate) fn flow_id(&self, text: &Text, k: usize, out: &mut String) {
        out.push_str(text.get(self.prefix));
        out.push_str("_f");
        push_uint(out, k as u64 + 1);
    }

    /// Add a node; returns its index.
    pub(crate) fn add(&mut self, id: Str, name: Str, kind: Kind) -> usize {
        self.nodes.push(Node { id, name, kind });
        self.nodes.len() - 1
    }

    /// Add a sequence flow; returns its index.
    pub(crate) fn connect(&mut self, from: usize, to: usize) -> usize {
        self.connect_if(from, to, None, "")
    }

    /// Add a sequence flow with a condition and a label; returns its index.
    pub(crate) fn connect_if(
        &mut self,
        from: usize,
        to: usize,
        condition: Option<Str>,
        name: &'static str,
    ) -> usize {
        self.flows.push(Flow {
            from: small(from),
            to: small(to),
            condition,
            name,
            log: FlowLog::Nothing,
        });
        self.flows.len() - 1
    }

    /// Give back the room its vectors (and those of the planes inside it)
    /// grew into and do not use: a plan's planes are kept while it is laid
    /// out and written.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.nodes.shrink_to_fit();
        self.flows.shrink_to_fit();
        self.associations.shrink_to_fit();
        for n in &mut self.nodes {
            if let Kind::Sub(s) = &mut n.kind {
                s.plane.shrink_to_fit();
            }
        }
    }

    /// Add an association from a compensation boundary event to its handler.
    pub(crate) fn associate(&mut self, id: Str, from: usize, to: usize) {
        self.associations.push(Association { id, from, to });
    }

    /// Incoming and outgoing flows of every node (built on the first call;
    /// the plane is not to change after that).
    pub(crate) fn adjacency(&self) -> &Adjacency {
        let a = self.adjacency.get_or_init(|| {
            Adjacency::new(
                self.nodes.len(),
                self.flows.iter().map(|f| (f.from(), f.to())),
            )
        });
        debug_assert_eq!(a.out.len(), self.flows.len(), "plane changed after use");
        a
    }
}

/// Append a number in decimal.
pub(crate) fn push_uint(out: &mut String, mut n: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    // Digits only: always UTF-8.
    out.push_str(std::str::from_utf8(&buf[i..]).unwrap_or_default());
}

/// Flows into and out of every node of a plane, in flow order: compressed
/// lists (of 32-bit indices), built in one pass.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Adjacency {
    out_start: Vec<u32>,
    out: Vec<u32>,
    in_start: Vec<u32>,
    inc: Vec<u32>,
}

impl Adjacency {
    /// From `nodes` and the (from, to) pairs of the flows, in order.
    pub(crate) fn new(
        nodes: usize,
        flows: impl Iterator<Item = (usize, usize)> + Clone,
    ) -> Adjacency {
        let mut out_start = vec![0u32; nodes + 1];
        let mut in_start = vec![0u32; nodes + 1];
        let mut count = 0;
        for (f, t) in flows.clone() {
            out_start[f + 1] += 1;
            in_start[t + 1] += 1;
            count += 1;
        }
        for i in 0..nodes {
            out_start[i + 1] += out_start[i];
            in_start[i + 1] += in_start[i];
        }
        let mut out = vec![0u32; count];
        let mut inc = vec![0u32; count];
        let mut out_fill = out_start.clone();
        let mut in_fill = in_start.clone();
        for (k, (f, t)) in flows.enumerate() {
            out[out_fill[f] as usize] = small(k);
            out_fill[f] += 1;
            inc[in_fill[t] as usize] = small(k);
            in_fill[t] += 1;
        }
        Adjacency {
            out_start,
            out,
            in_start,
            inc,
        }
    }

    /// Indices of the flows out of node `i`, in flow order.
    pub(crate) fn outgoing(&self, i: usize) -> &[u32] {
        &self.out[self.out_start[i] as usize..self.out_start[i + 1] as usize]
    }

    /// Indices of the flows into node `i`, in flow order.
    pub(crate) fn incoming(&self, i: usize) -> &[u32] {
        &self.inc[self.in_start[i] as usize..self.in_start[i + 1] as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flows_are_numbered_in_their_plane_and_indexed() {
        let mut text = Text::default();
        let mut p = Plane::new(text.add("A"));
        let a1 = p.add(text.add("A_s1"), Str::default(), Kind::And);
        let a2 = p.add(text.add("A_s2"), Str::default(), Kind::And);
        let f1 = p.connect(a1, a2);
        let f2 = p.connect(a1, a2);
        let mut id = String::new();
        p.flow_id(&text, f2, &mut id);
        assert_eq!(id, "A_f2");
        assert_eq!(text.get(p.nodes[a2].id), "A_s2");
        let adj = p.adjacency();
        assert_eq!(adj.outgoing(a1), &[f1 as u32, f2 as u32]);
        assert_eq!(adj.incoming(a2), &[f1 as u32, f2 as u32]);
        assert!(adj.incoming(a1).is_empty());
    }
}
