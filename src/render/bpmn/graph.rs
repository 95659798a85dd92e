//! A small in-memory BPMN model: planes of flow nodes and sequence flows.
//! The backend builds it from a concrete plan, [`super::layout`] places
//! it, [`super::xml`] writes it. Keeping structure apart from text lets
//! the layout and the tests reason about the graph (incoming flows,
//! gateways) instead of parsing XML.

/// An HTTP call made by a Camunda Connect `http-connector` service task.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Http {
    /// `GET`, `POST`, `PUT`.
    pub method: &'static str,
    /// Groovy expression (process variables in scope) giving the URL.
    pub url: String,
    /// `Content-Type` of the payload, if any.
    pub content_type: Option<&'static str>,
    /// `Accept` header.
    pub accept: &'static str,
    /// Groovy script giving the payload, if any.
    pub payload: Option<String>,
    /// Output variables: name and Groovy script over `statusCode`, `response`, `headers`.
    pub outputs: Vec<(String, String)>,
}

/// How a subprocess repeats.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Repeat {
    /// Runs once.
    Once,
    /// A compensation handler (`isForCompensation`).
    Compensation,
    /// An event subprocess started by an error (`triggeredByEvent`).
    OnError,
}

/// What a flow node is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Start event; `Some(error)` for the error start of an event subprocess.
    Start(Option<String>),
    /// End event; `Some(error)` makes it an error end event throwing that error.
    End(Option<String>),
    /// Service task calling a REST API through the HTTP connector.
    Http(Box<Http>),
    /// Script task (Groovy) computing variables, no remote call.
    Script(String),
    /// Subprocess.
    Sub(Box<Sub>),
    /// Exclusive gateway; the id of its default flow, if it splits.
    Xor(Option<String>),
    /// Parallel gateway.
    And,
    /// Intermediate timer catch event with an ISO 8601 duration.
    Timer(&'static str),
    /// Intermediate throw event that compensates the completed activities of its scope.
    Compensate,
    /// Boundary event on `host`: an error catch (interrupting) or a compensation.
    Boundary {
        /// The activity it is attached to.
        host: String,
        /// `true`: catch-all error event; `false`: compensation event.
        error: bool,
    },
}

/// A subprocess: its own plane and how it runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sub {
    /// Its content.
    pub plane: Plane,
    /// Drawn open inside its parent (`true`) or as a box with its own diagram.
    pub expanded: bool,
    /// Loop, compensation handler or event subprocess.
    pub repeat: Repeat,
    /// Local variables (name, Groovy script) created when it starts.
    pub locals: Vec<(String, String)>,
    /// Output variables (name, Groovy script) set when it ends.
    pub outputs: Vec<(String, String)>,
}

/// A flow node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// Element id (an NCName, prefixed by its activity's id).
    pub id: String,
    /// Label.
    pub name: String,
    /// What it is.
    pub kind: Kind,
}

/// A sequence flow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Flow {
    /// Element id.
    pub id: String,
    /// Source node id.
    pub from: String,
    /// Target node id.
    pub to: String,
    /// JUEL condition, for flows out of an exclusive split.
    pub condition: Option<String>,
    /// Label.
    pub name: String,
}

/// A plane: what one process or subprocess contains.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plane {
    /// Flow nodes, in creation order (which is also the reading order).
    pub nodes: Vec<Node>,
    /// Sequence flows.
    pub flows: Vec<Flow>,
    /// Associations from compensation boundary events to their handlers: (id, from, to).
    pub associations: Vec<(String, String, String)>,
}

impl Plane {
    /// Add a node; returns its id.
    pub fn add(&mut self, id: impl Into<String>, name: impl Into<String>, kind: Kind) -> String {
        let id = id.into();
        self.nodes.push(Node {
            id: id.clone(),
            name: name.into(),
            kind,
        });
        id
    }

    /// Add a sequence flow with an id derived from its ends.
    pub fn connect(&mut self, from: &str, to: &str) -> String {
        self.connect_if(from, to, None, "")
    }

    /// Add a sequence flow with a condition and a label.
    pub fn connect_if(
        &mut self,
        from: &str,
        to: &str,
        condition: Option<String>,
        name: &str,
    ) -> String {
        let base = format!("{from}_to_{}", short(to, from));
        let mut id = base.clone();
        let mut n = 2;
        while self.flows.iter().any(|f| f.id == id) {
            id = format!("{base}_{n}");
            n += 1;
        }
        self.flows.push(Flow {
            id: id.clone(),
            from: from.into(),
            to: to.into(),
            condition,
            name: name.into(),
        });
        id
    }

    /// The node with this id.
    pub fn node(&self, id: &str) -> Option<&Node> {
        self.nodes.iter().find(|n| n.id == id)
    }

    /// Ids of the flows into a node.
    pub fn incoming(&self, id: &str) -> Vec<&Flow> {
        self.flows.iter().filter(|f| f.to == id).collect()
    }

    /// Ids of the flows out of a node.
    pub fn outgoing(&self, id: &str) -> Vec<&Flow> {
        self.flows.iter().filter(|f| f.from == id).collect()
    }

    /// Every plane nested in this one (depth first), with this one first.
    pub fn walk(&self) -> Vec<&Plane> {
        let mut out = vec![self];
        for n in &self.nodes {
            if let Kind::Sub(s) = &n.kind {
                out.extend(s.plane.walk());
            }
        }
        out
    }
}

/// Flow ids read `<from>_to_<to>`; when the target shares the source's
/// prefix (same activity), only the rest of the target's id is repeated.
fn short<'a>(to: &'a str, from: &str) -> &'a str {
    let common = to
        .char_indices()
        .zip(from.chars())
        .take_while(|((_, a), b)| a == b)
        .last()
        .map(|((i, c), _)| i + c.len_utf8())
        .unwrap_or(0);
    // Cut at the last `_` inside the common prefix, so ids stay readable.
    match to[..common].rfind('_') {
        Some(cut) if cut + 1 < to.len() => &to[cut + 1..],
        _ => to,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flow_ids_are_short_and_unique() {
        let mut p = Plane::default();
        assert_eq!(p.connect("A_s1", "A_s2"), "A_s1_to_s2");
        assert_eq!(p.connect("A_s1", "A_s2"), "A_s1_to_s2_2");
        assert_eq!(p.connect("A", "B_join"), "A_to_B_join");
    }
}
