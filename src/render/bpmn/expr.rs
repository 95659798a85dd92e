//! Expressions over the BPMN model: a concatenation as a parameter value
//! (JUEL text where it can be, Groovy otherwise), and the Groovy of a
//! binding. Scripts read process variables through the prelude's
//! `v(name)` (a missing variable reads as `''`), so plan inputs of any
//! name work and no script fails on an unset variable. JUEL (`${name}`) is
//! used only for variables that every plan sets before it reads them (plan
//! inputs included: `plan_init` sets the missing ones to `''`) and whose
//! names are JUEL identifiers; anything else is Groovy ([`super::groovy`]).
//!
//! In: parts or a binding, the plan's text. Out: a [`Value`] or Groovy text.

use super::graph::{Text, Value};
use super::groovy::{Part, juel_ident, juel_text, push_groovy, push_literal, push_var};
use crate::model::Topology;
use crate::plugins::steps::Binding;
use crate::render::vars::Vars;

/// A concatenation as a parameter value: JUEL text when it can be (Camunda
/// trims text content, so a lone literal must not start or end with
/// white space), Groovy otherwise.
pub(super) fn concat(text: &mut Text, parts: &[Part]) -> Value {
    let juel = parts.iter().all(|p| match p {
        Part::Lit(s) => juel_text(s),
        Part::Var(v) => juel_ident(v),
    }) && match parts {
        [] => false,
        [Part::Lit(s)] => !s.is_empty() && s.trim() == *s,
        _ => true,
    };
    if juel {
        Value::Text(text.build(|out| {
            for p in parts {
                match p {
                    Part::Lit(s) => out.push_str(s),
                    Part::Var(v) => {
                        out.push_str("${");
                        out.push_str(v);
                        out.push('}');
                    }
                }
            }
        }))
    } else {
        Value::Groovy(text.build(|out| push_groovy(out, parts)))
    }
}

/// Append the Groovy expression of a binding. `input` maps a plan input
/// to its variable.
pub(super) fn expr(
    out: &mut String,
    b: &Binding,
    topology: &Topology,
    names: &Vars,
    input: &dyn Fn(&str) -> String,
) {
    match b {
        Binding::Property(p) => push_var(out, names.prop(topology, p)),
        Binding::Input(n) => push_var(out, &input(n)),
        Binding::Literal(s) => push_literal(out, s),
        Binding::ArtifactUrl(path) => {
            push_var(out, &input(crate::plugins::complete::CSAR_ENTRYPOINT));
            out.push_str(" + ");
            push_literal(
                out,
                &format!("/Content/{}", crate::render::paths::url_path(path)),
            );
        }
        Binding::InstanceId(t) => push_var(out, names.id(*t)),
        Binding::Concat(parts) => match parts.len() {
            0 => out.push_str("''"),
            1 => expr(out, &parts[0], topology, names, input),
            _ => {
                out.push('(');
                for (i, p) in parts.iter().enumerate() {
                    if i > 0 {
                        out.push_str(" + ");
                    }
                    expr(out, p, topology, names, input);
                }
                out.push(')');
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::{Part, Text, Value, concat};

    fn show(parts: &[Part]) -> String {
        let mut text = Text::default();
        match concat(&mut text, parts) {
            Value::Text(s) => format!("juel {}", text.get(s)),
            Value::Groovy(s) => format!("groovy {}", text.get(s)),
            Value::Shared(s) => format!("{s:?}"),
            Value::Later(k) => format!("later {k}"),
        }
    }

    #[test]
    fn juel_where_it_means_the_same() {
        assert_eq!(
            show(&[Part::Var("a_url"), Part::Lit("/state")]),
            "juel ${a_url}/state"
        );
        assert_eq!(show(&[Part::Var("my-input")]), "groovy v('my-input')");
        assert_eq!(show(&[Part::Lit("a$b")]), "groovy 'a$b'");
        assert_eq!(show(&[Part::Lit(" x")]), "groovy ' x'");
        assert_eq!(show(&[Part::Var("task")]), "groovy v('task')");
        assert_eq!(show(&[]), "groovy ''");
    }
}
