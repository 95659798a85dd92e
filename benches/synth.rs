//! Synthetic topologies for benchmarks (a dev-only module: the benches,
//! `examples/synth.rs` and the tests include it by path; it is not part of
//! the library): a deterministic application of any
//! size with the shape of the corpus. Cloud providers (one per 500 nodes)
//! host VMs; a VM hosts either a web server with an application or a
//! database; each application connects to a database on another VM, and
//! every fifth application depends on the one before it, across hosts.
//! All operations have implementation artifacts, so every plugin path of
//! a real CSAR runs: the VM plugin's createVM on the provider, the
//! lifecycle plugin with inputs bound down the stack, artifact uploads,
//! connectTo on both ends.
//!
//! In: a node count. Out: the entries of a TOSCA 1.0 XML CSAR
//! ([`xml_csar`]) or of a TOSCA YAML 1.3 CSAR ([`yaml_csar`]) with the
//! same topology.

use std::fmt::Write;

/// Nodes per cloud provider.
const PER_PROVIDER: usize = 500;

/// The entries of a CSAR with about `nodes` node templates (at least 3),
/// sorted by name.
pub fn xml_csar(nodes: usize) -> Vec<(String, Vec<u8>)> {
    let mut out = vec![
        (
            "TOSCA-Metadata/TOSCA.meta".to_string(),
            b"TOSCA-Meta-Version: 1.0\nCSAR-Version: 1.0\nCreated-By: toscanini synth\nEntry-Definitions: Definitions/synth.tosca\n".to_vec(),
        ),
        ("Definitions/synth.tosca".to_string(), definitions(nodes).into_bytes()),
    ];
    for (file, text) in FILES {
        out.push((format!("files/{file}"), text.as_bytes().to_vec()));
    }
    out.sort();
    out
}

/// The entries of a TOSCA YAML 1.3 CSAR with the topology of
/// [`xml_csar`]: the same stacks, as requirements; Standard operations
/// implemented by scripts; the database connection a ConnectsTo subtype
/// with a Configure operation.
pub fn yaml_csar(nodes: usize) -> Vec<(String, Vec<u8>)> {
    let mut out = vec![
        (
            "TOSCA-Metadata/TOSCA.meta".to_string(),
            b"TOSCA-Meta-File-Version: 1.1\nCSAR-Version: 1.1\nCreated-By: toscanini synth\nEntry-Definitions: synth.yaml\n".to_vec(),
        ),
        ("synth.yaml".to_string(), yaml_service_template(nodes).into_bytes()),
    ];
    for (file, text) in FILES {
        out.push((format!("files/{file}"), text.as_bytes().to_vec()));
    }
    out.sort();
    out
}

fn yaml_service_template(nodes: usize) -> String {
    let (providers, stacks) = stacks(nodes);
    let dbs = stacks.iter().filter(|s| matches!(s, Stack::Db(_))).count();
    let mut y = String::with_capacity(nodes * 300 + 8 * 1024);
    y.push_str(YAML_TYPES);
    y.push_str(
        "topology_template:\n  inputs:\n    db_password: {type: string}\n  node_templates:\n",
    );
    for p in 0..providers {
        let _ = write!(
            y,
            "    cloud_{p}:\n      type: synth.Cloud\n      properties: {{endpoint: cloud-{p}.example.org}}\n"
        );
    }
    let mut previous_app: Option<usize> = None;
    for (i, stack) in stacks.iter().enumerate() {
        let provider = (i * providers) / stacks.len().max(1);
        let _ = write!(
            y,
            "    vm_{i}:\n      type: synth.VM\n      properties: {{flavor: m1.medium}}\n      requirements:\n        - host: cloud_{provider}\n"
        );
        match *stack {
            Stack::Web(w) => {
                let db = (w * 7 + 3) % dbs.max(1);
                let _ = write!(
                    y,
                    "    web_{w}:\n      type: synth.WebServer\n      properties: {{port: 8080}}\n      requirements:\n        - host: vm_{i}\n    app_{w}:\n      type: synth.App\n      properties: {{context: /app{w}}}\n      requirements:\n        - host: web_{w}\n        - database: db_{db}\n"
                );
                if w % 5 == 4
                    && let Some(p) = previous_app
                {
                    let _ = writeln!(y, "        - dependency: app_{p}");
                }
                previous_app = Some(w);
            }
            Stack::Db(d) => {
                let _ = write!(
                    y,
                    "    db_{d}:\n      type: synth.Database\n      properties: {{name: db{d}, password: {{get_input: db_password}}}}\n      requirements:\n        - host: vm_{i}\n"
                );
            }
        }
    }
    y
}

/// Types of the YAML topology.
const YAML_TYPES: &str = r#"tosca_definitions_version: tosca_simple_yaml_1_3
metadata:
  template_name: Synth
  template_version: "1.0"
node_types:
  synth.Cloud:
    derived_from: tosca.nodes.Root
    properties:
      endpoint: {type: string}
    capabilities:
      host:
        type: tosca.capabilities.Container
        valid_source_types: [synth.VM]
  synth.VM:
    derived_from: tosca.nodes.Compute
    properties:
      flavor: {type: string}
    requirements:
      - host:
          capability: tosca.capabilities.Container
          node: synth.Cloud
          relationship: tosca.relationships.HostedOn
    interfaces:
      Standard:
        create: files/install.sh
        delete: files/stop.sh
  synth.WebServer:
    derived_from: tosca.nodes.WebServer
    properties:
      port: {type: integer}
    interfaces:
      Standard:
        create: files/install.sh
        start: files/start.sh
        stop: files/stop.sh
  synth.App:
    derived_from: tosca.nodes.WebApplication
    properties:
      context: {type: string}
    requirements:
      - database:
          capability: tosca.capabilities.Endpoint.Database
          relationship: synth.ConnectsToDatabase
    interfaces:
      Standard:
        create:
          implementation: files/install.sh
          inputs:
            context: {get_property: [SELF, context]}
            port: {get_property: [HOST, port]}
        start: files/start.sh
  synth.Database:
    derived_from: tosca.nodes.SoftwareComponent
    properties:
      name: {type: string}
      password: {type: string}
    capabilities:
      database_endpoint: tosca.capabilities.Endpoint.Database
    interfaces:
      Standard:
        create:
          implementation: files/install.sh
          inputs:
            name: {get_property: [SELF, name]}
            password: {get_property: [SELF, password]}
        start: files/start.sh
        stop: files/stop.sh
relationship_types:
  synth.ConnectsToDatabase:
    derived_from: tosca.relationships.ConnectsTo
    interfaces:
      Configure:
        post_configure_source:
          implementation: files/start.sh
          inputs:
            database: {get_property: [TARGET, name]}
"#;

/// The files the artifact templates reference.
const FILES: [(&str, &str); 6] = [
    (
        "cloud.war",
        "placeholder for the cloud provider's management service\n",
    ),
    (
        "os.war",
        "placeholder for the operating system's management service\n",
    ),
    ("install.sh", "#!/bin/sh\necho install\n"),
    ("start.sh", "#!/bin/sh\necho start\n"),
    ("stop.sh", "#!/bin/sh\necho stop\n"),
    ("app.zip", "placeholder for the application archive\n"),
];

/// One stack of the topology.
enum Stack {
    /// VM, web server, application.
    Web(usize),
    /// VM, database.
    Db(usize),
}

/// The stacks that make up about `nodes` nodes: three web stacks per
/// database stack, after the providers.
fn stacks(nodes: usize) -> (usize, Vec<Stack>) {
    let providers = nodes.div_ceil(PER_PROVIDER).max(1);
    let mut left = nodes.saturating_sub(providers).max(2);
    let mut stacks = Vec::new();
    let (mut web, mut db) = (0, 0);
    while left >= 2 {
        if stacks.len() % 4 == 3 || left < 3 || db == 0 {
            stacks.push(Stack::Db(db));
            db += 1;
            left -= 2;
        } else {
            stacks.push(Stack::Web(web));
            web += 1;
            left -= 3;
        }
    }
    (providers, stacks)
}

fn definitions(nodes: usize) -> String {
    let (providers, stacks) = stacks(nodes);
    let dbs = stacks.iter().filter(|s| matches!(s, Stack::Db(_))).count();
    let mut x = String::with_capacity(nodes * 700 + 16 * 1024);
    x.push_str(HEADER);
    x.push_str("    <ServiceTemplate id=\"Synth\" name=\"Synth\">\n        <TopologyTemplate>\n");
    for p in 0..providers {
        let _ = write!(
            x,
            r#"            <NodeTemplate id="cloud_{p}" type="s:Cloud">
                <Properties><s:P><s:HypervisorEndpoint>cloud-{p}.example.org</s:HypervisorEndpoint><s:HypervisorTenantID>synth</s:HypervisorTenantID><s:HypervisorUserName>get_input: CloudUser</s:HypervisorUserName><s:HypervisorUserPassword>get_input: CloudPassword</s:HypervisorUserPassword></s:P></Properties>
            </NodeTemplate>
"#
        );
    }
    let mut rels = String::with_capacity(nodes * 500);
    let rel = |x: &mut String, id: String, kind: &str, source: &str, target: &str| {
        let _ = writeln!(
            x,
            r#"            <RelationshipTemplate id="{id}" type="bt:{kind}"><SourceElement ref="{source}"/><TargetElement ref="{target}"/></RelationshipTemplate>"#
        );
    };
    let mut previous_app: Option<usize> = None;
    for (i, stack) in stacks.iter().enumerate() {
        let provider = (i * providers) / stacks.len().max(1);
        let vm = format!("vm_{i}");
        let _ = write!(
            x,
            r#"            <NodeTemplate id="{vm}" type="s:VM">
                <Properties><s:P><s:VMIP/><s:VMInstanceID/><s:VMType>m1.medium</s:VMType><s:VMUserName>ubuntu</s:VMUserName><s:VMPrivateKey>get_input: VMPrivateKey</s:VMPrivateKey><s:VMKeyPairName>synth</s:VMKeyPairName></s:P></Properties>
            </NodeTemplate>
"#
        );
        rel(
            &mut rels,
            format!("{vm}_on_cloud"),
            "HostedOn",
            &vm,
            &format!("cloud_{provider}"),
        );
        match *stack {
            Stack::Web(w) => {
                let _ = write!(
                    x,
                    r#"            <NodeTemplate id="web_{w}" type="s:WebServer">
                <Properties><s:P><s:Port>8080</s:Port><s:AdminUser>admin</s:AdminUser></s:P></Properties>
            </NodeTemplate>
            <NodeTemplate id="app_{w}" type="s:App">
                <Properties><s:P><s:Context>/app{w}</s:Context><s:Version>1.{w}</s:Version></s:P></Properties>
                <DeploymentArtifacts><DeploymentArtifact name="archive" artifactType="bt:ArchiveArtifact" artifactRef="s:AppArchive"/></DeploymentArtifacts>
            </NodeTemplate>
"#
                );
                rel(
                    &mut rels,
                    format!("web_{w}_on_vm"),
                    "HostedOn",
                    &format!("web_{w}"),
                    &vm,
                );
                rel(
                    &mut rels,
                    format!("app_{w}_on_web"),
                    "HostedOn",
                    &format!("app_{w}"),
                    &format!("web_{w}"),
                );
                let db = (w * 7 + 3) % dbs.max(1);
                rel(
                    &mut rels,
                    format!("app_{w}_to_db"),
                    "ConnectsTo",
                    &format!("app_{w}"),
                    &format!("db_{db}"),
                );
                if w % 5 == 4
                    && let Some(p) = previous_app
                {
                    rel(
                        &mut rels,
                        format!("app_{w}_needs_app_{p}"),
                        "DependsOn",
                        &format!("app_{w}"),
                        &format!("app_{p}"),
                    );
                }
                previous_app = Some(w);
            }
            Stack::Db(d) => {
                let _ = write!(
                    x,
                    r#"            <NodeTemplate id="db_{d}" type="s:Database">
                <Properties><s:P><s:DBName>db{d}</s:DBName><s:DBUser>app</s:DBUser><s:DBPassword>get_input: DBPassword</s:DBPassword><s:DBPort>3306</s:DBPort></s:P></Properties>
            </NodeTemplate>
"#
                );
                rel(
                    &mut rels,
                    format!("db_{d}_on_vm"),
                    "HostedOn",
                    &format!("db_{d}"),
                    &vm,
                );
            }
        }
    }
    x.push_str(&rels);
    x.push_str("        </TopologyTemplate>\n    </ServiceTemplate>\n</Definitions>\n");
    x
}

/// Types, implementations and artifact templates.
const HEADER: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<Definitions xmlns="http://docs.oasis-open.org/tosca/ns/2011/12" xmlns:bt="http://docs.oasis-open.org/tosca/ns/2011/12/ToscaBaseTypes" xmlns:s="http://example.org/synth" id="Synth" targetNamespace="http://example.org/synth">
    <RelationshipType name="HostedOn" targetNamespace="http://docs.oasis-open.org/tosca/ns/2011/12/ToscaBaseTypes"/>
    <RelationshipType name="DependsOn" targetNamespace="http://docs.oasis-open.org/tosca/ns/2011/12/ToscaBaseTypes"/>
    <RelationshipType name="ConnectsTo" targetNamespace="http://docs.oasis-open.org/tosca/ns/2011/12/ToscaBaseTypes"/>
    <ArtifactType name="ScriptArtifact" targetNamespace="http://docs.oasis-open.org/tosca/ns/2011/12/ToscaBaseTypes"/>
    <ArtifactType name="ArchiveArtifact" targetNamespace="http://docs.oasis-open.org/tosca/ns/2011/12/ToscaBaseTypes"/>
    <ArtifactType name="WAR"/>
    <NodeType name="Cloud">
        <Interfaces>
            <Interface name="CloudProviderInterface">
                <Operation name="createVM">
                    <InputParameters>
                        <InputParameter name="HypervisorEndpoint" type="xsd:string"/>
                        <InputParameter name="HypervisorTenantID" type="xsd:string"/>
                        <InputParameter name="HypervisorUserName" type="xsd:string"/>
                        <InputParameter name="HypervisorUserPassword" type="xsd:string"/>
                        <InputParameter name="VMImageID" type="xsd:string"/>
                        <InputParameter name="VMType" type="xsd:string"/>
                        <InputParameter name="VMKeyPairName" type="xsd:string"/>
                    </InputParameters>
                    <OutputParameters>
                        <OutputParameter name="VMInstanceID" type="xsd:string"/>
                        <OutputParameter name="VMIP" type="xsd:string"/>
                    </OutputParameters>
                </Operation>
                <Operation name="terminateVM">
                    <InputParameters>
                        <InputParameter name="HypervisorEndpoint" type="xsd:string"/>
                        <InputParameter name="HypervisorUserName" type="xsd:string"/>
                        <InputParameter name="HypervisorUserPassword" type="xsd:string"/>
                        <InputParameter name="VMInstanceID" type="xsd:string"/>
                    </InputParameters>
                </Operation>
            </Interface>
        </Interfaces>
    </NodeType>
    <NodeType name="VM">
        <Interfaces>
            <Interface name="OperatingSystemInterface">
                <Operation name="waitForAvailability">
                    <InputParameters><InputParameter name="VMIP" type="xsd:string"/></InputParameters>
                </Operation>
                <Operation name="transferFile">
                    <InputParameters>
                        <InputParameter name="VMIP" type="xsd:string"/>
                        <InputParameter name="VMUserName" type="xsd:string"/>
                        <InputParameter name="VMPrivateKey" type="xsd:string"/>
                        <InputParameter name="TargetAbsolutePath" type="xsd:string"/>
                        <InputParameter name="SourceURLorLocalPath" type="xsd:string"/>
                    </InputParameters>
                </Operation>
                <Operation name="runScript">
                    <InputParameters>
                        <InputParameter name="VMIP" type="xsd:string"/>
                        <InputParameter name="VMUserName" type="xsd:string"/>
                        <InputParameter name="VMPrivateKey" type="xsd:string"/>
                        <InputParameter name="Script" type="xsd:string"/>
                    </InputParameters>
                </Operation>
            </Interface>
        </Interfaces>
    </NodeType>
    <NodeType name="WebServer">
        <Interfaces>
            <Interface name="http://opentosca.org/interfaces/lifecycle">
                <Operation name="install">
                    <InputParameters>
                        <InputParameter name="VMIP" type="xsd:string"/>
                        <InputParameter name="VMUserName" type="xsd:string"/>
                        <InputParameter name="VMPrivateKey" type="xsd:string"/>
                    </InputParameters>
                </Operation>
                <Operation name="start">
                    <InputParameters>
                        <InputParameter name="VMIP" type="xsd:string"/>
                        <InputParameter name="Port" type="xsd:string"/>
                    </InputParameters>
                </Operation>
                <Operation name="stop">
                    <InputParameters><InputParameter name="VMIP" type="xsd:string"/></InputParameters>
                </Operation>
            </Interface>
        </Interfaces>
    </NodeType>
    <NodeType name="App">
        <Interfaces>
            <Interface name="http://opentosca.org/interfaces/lifecycle">
                <Operation name="install">
                    <InputParameters>
                        <InputParameter name="VMIP" type="xsd:string"/>
                        <InputParameter name="Context" type="xsd:string"/>
                        <InputParameter name="Port" type="xsd:string"/>
                    </InputParameters>
                </Operation>
                <Operation name="start">
                    <InputParameters><InputParameter name="VMIP" type="xsd:string"/></InputParameters>
                </Operation>
            </Interface>
            <Interface name="http://opentosca.org/interfaces/connections">
                <Operation name="connectTo">
                    <InputParameters>
                        <InputParameter name="VMIP" type="xsd:string"/>
                        <InputParameter name="DBName" type="xsd:string"/>
                        <InputParameter name="DBUser" type="xsd:string"/>
                        <InputParameter name="DBPassword" type="xsd:string"/>
                        <InputParameter name="DBPort" type="xsd:string"/>
                    </InputParameters>
                </Operation>
            </Interface>
        </Interfaces>
    </NodeType>
    <NodeType name="Database">
        <Interfaces>
            <Interface name="http://opentosca.org/interfaces/lifecycle">
                <Operation name="install">
                    <InputParameters>
                        <InputParameter name="VMIP" type="xsd:string"/>
                        <InputParameter name="DBName" type="xsd:string"/>
                        <InputParameter name="DBUser" type="xsd:string"/>
                        <InputParameter name="DBPassword" type="xsd:string"/>
                    </InputParameters>
                </Operation>
                <Operation name="start">
                    <InputParameters><InputParameter name="VMIP" type="xsd:string"/></InputParameters>
                </Operation>
                <Operation name="stop">
                    <InputParameters><InputParameter name="VMIP" type="xsd:string"/></InputParameters>
                </Operation>
            </Interface>
        </Interfaces>
    </NodeType>
    <NodeTypeImplementation name="Cloud_Impl" nodeType="s:Cloud">
        <ImplementationArtifacts><ImplementationArtifact interfaceName="CloudProviderInterface" artifactType="s:WAR" artifactRef="s:CloudIA"/></ImplementationArtifacts>
    </NodeTypeImplementation>
    <NodeTypeImplementation name="VM_Impl" nodeType="s:VM">
        <ImplementationArtifacts><ImplementationArtifact interfaceName="OperatingSystemInterface" artifactType="s:WAR" artifactRef="s:OsIA"/></ImplementationArtifacts>
    </NodeTypeImplementation>
    <NodeTypeImplementation name="WebServer_Impl" nodeType="s:WebServer">
        <ImplementationArtifacts>
            <ImplementationArtifact interfaceName="http://opentosca.org/interfaces/lifecycle" operationName="install" artifactType="bt:ScriptArtifact" artifactRef="s:Install"/>
            <ImplementationArtifact interfaceName="http://opentosca.org/interfaces/lifecycle" operationName="start" artifactType="bt:ScriptArtifact" artifactRef="s:Start"/>
            <ImplementationArtifact interfaceName="http://opentosca.org/interfaces/lifecycle" operationName="stop" artifactType="bt:ScriptArtifact" artifactRef="s:Stop"/>
        </ImplementationArtifacts>
    </NodeTypeImplementation>
    <NodeTypeImplementation name="App_Impl" nodeType="s:App">
        <ImplementationArtifacts>
            <ImplementationArtifact interfaceName="http://opentosca.org/interfaces/lifecycle" operationName="install" artifactType="bt:ScriptArtifact" artifactRef="s:Install"/>
            <ImplementationArtifact interfaceName="http://opentosca.org/interfaces/lifecycle" operationName="start" artifactType="bt:ScriptArtifact" artifactRef="s:Start"/>
            <ImplementationArtifact interfaceName="http://opentosca.org/interfaces/connections" artifactType="bt:ScriptArtifact" artifactRef="s:Start"/>
        </ImplementationArtifacts>
    </NodeTypeImplementation>
    <NodeTypeImplementation name="Database_Impl" nodeType="s:Database">
        <ImplementationArtifacts>
            <ImplementationArtifact interfaceName="http://opentosca.org/interfaces/lifecycle" operationName="install" artifactType="bt:ScriptArtifact" artifactRef="s:Install"/>
            <ImplementationArtifact interfaceName="http://opentosca.org/interfaces/lifecycle" operationName="start" artifactType="bt:ScriptArtifact" artifactRef="s:Start"/>
            <ImplementationArtifact interfaceName="http://opentosca.org/interfaces/lifecycle" operationName="stop" artifactType="bt:ScriptArtifact" artifactRef="s:Stop"/>
        </ImplementationArtifacts>
    </NodeTypeImplementation>
    <ArtifactTemplate id="CloudIA" type="s:WAR"><ArtifactReferences><ArtifactReference reference="files/cloud.war"/></ArtifactReferences></ArtifactTemplate>
    <ArtifactTemplate id="OsIA" type="s:WAR"><ArtifactReferences><ArtifactReference reference="files/os.war"/></ArtifactReferences></ArtifactTemplate>
    <ArtifactTemplate id="Install" type="bt:ScriptArtifact"><ArtifactReferences><ArtifactReference reference="files/install.sh"/></ArtifactReferences></ArtifactTemplate>
    <ArtifactTemplate id="Start" type="bt:ScriptArtifact"><ArtifactReferences><ArtifactReference reference="files/start.sh"/></ArtifactReferences></ArtifactTemplate>
    <ArtifactTemplate id="Stop" type="bt:ScriptArtifact"><ArtifactReferences><ArtifactReference reference="files/stop.sh"/></ArtifactReferences></ArtifactTemplate>
    <ArtifactTemplate id="AppArchive" type="bt:ArchiveArtifact"><ArtifactReferences><ArtifactReference reference="files/app.zip"/></ArtifactReferences></ArtifactTemplate>
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_dialects_compile_to_the_same_number_of_templates() {
        let options = toscanini::Options::default();
        for (entries, dialect) in [(xml_csar(300), "XML"), (yaml_csar(300), "YAML")] {
            let csar = toscanini::Csar::from_entries("synth", entries);
            let mut sources = toscanini::diagnostics::SourceMap::new();
            let loaded = match toscanini::load_csar(csar, &options, &mut sources) {
                Ok(l) => l,
                Err(toscanini::error::Error::Input(d)) => panic!(
                    "{dialect}: {}",
                    toscanini::diagnostics::render::render_all(&d, &sources)
                ),
                Err(e) => panic!("{dialect}: {e}"),
            };
            let t = &loaded.topology;
            assert!(
                t.nodes.len().abs_diff(300) <= 2,
                "{dialect}: {}",
                t.nodes.len()
            );
            assert!(t.relationships.len() > t.nodes.len(), "{dialect}");
        }
    }

    #[test]
    fn sizes_are_close_to_the_request_and_every_stack_kind_is_there() {
        for n in [3, 10, 1000, 10_000] {
            let (providers, stacks) = stacks(n);
            let count = providers
                + stacks
                    .iter()
                    .map(|s| match s {
                        Stack::Web(_) => 3,
                        Stack::Db(_) => 2,
                    })
                    .sum::<usize>();
            assert!(count.abs_diff(n) <= 2, "{n}: {count}");
            assert!(stacks.iter().any(|s| matches!(s, Stack::Db(_))));
        }
    }
}
