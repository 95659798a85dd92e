//! Which ordering rules a plan follows.

/// How relationships order their ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OrderingStyle {
    /// OpenTOSCA (seed 004): HostedOn/DependsOn/DeployedOn from S to T order
    /// T → R → S; ConnectsTo orders S → R and T → R.
    OpenTosca,
    /// TOSCA Simple Profile 1.3 §7.2: for HostedOn, DependsOn and ConnectsTo
    /// (and, by the same rule, AttachesTo and kinds it does not name) the
    /// target is started before the source is created (T → S); the
    /// relationship's own steps run once both are up (S → R, T → R).
    SimpleProfile,
}

/// What to do with a relationship whose type derives from no known kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnknownOrdering {
    /// Order it like DependsOn: target before source (the safe default).
    DependsOn,
    /// Impose no order.
    Ignore,
}

/// The rules one plan derivation applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OrderingRules {
    /// Relationship ordering style.
    pub style: OrderingStyle,
    /// Serialise activities of nodes on the same host (TOSCA 1.3 §7.2.3.1).
    pub same_host_serial: bool,
    /// Ordering of unknown relationship kinds.
    pub unknown: UnknownOrdering,
}

impl OrderingRules {
    /// OpenTOSCA's rules, used for TOSCA 1.0 XML.
    pub fn opentosca() -> Self {
        OrderingRules {
            style: OrderingStyle::OpenTosca,
            same_host_serial: false,
            unknown: UnknownOrdering::DependsOn,
        }
    }

    /// Simple Profile 1.3 rules, used for YAML.
    pub fn simple_profile() -> Self {
        OrderingRules {
            style: OrderingStyle::SimpleProfile,
            same_host_serial: true,
            unknown: UnknownOrdering::DependsOn,
        }
    }
}
