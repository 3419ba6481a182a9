//! Steps for Services and routes: selectors that match nothing, workloads
//! scaled to zero, named ports, addresses no controller writes, budgets.

use super::{Cx, NextStep, arg, describe, kubectl, step};
use crate::verdict::reason::Network;

pub(super) fn step_for(code: Network, cx: &Cx) -> Option<NextStep> {
    let who = &cx.who;
    Some(match code {
        Network::NoEndpoints => step(
            "The Service's selector matches no pods: fix spec.selector or the pods' labels.",
            vec![
                describe(who),
                format!("{} get pods --show-labels", kubectl(who)),
            ],
        ),
        Network::ScaledToZero => {
            let svc = who.uid.as_deref().and_then(|u| cx.snap.get(u));
            let scale: Vec<String> = svc
                .map(|s| crate::selector::backing_workloads(cx.snap, s))
                .unwrap_or_default()
                .iter()
                .map(|w| format!("{} scale {} --replicas=1", kubectl(&w.id), arg(&w.id)))
                .collect();
            step(
                "The Service has no endpoints because the workload behind it runs no pods: scale it up (to as many replicas as it should run), unless it is scaled down on purpose (an autoscaler such as KEDA scales idle workloads to 0).",
                scale,
            )
        }
        Network::NamedPortNotFound => step(
            "The Service targets a container port by a name its pods do not declare: set spec.ports[].targetPort to a port name (or number) the containers declare, or name the container port so in the pod template.",
            vec![
                format!(
                    "{} get {} -o jsonpath='{{.spec.ports}}'",
                    kubectl(who),
                    arg(who)
                ),
                format!(
                    "{} get pods -o jsonpath='{{range .items[*]}}{{.metadata.name}}{{\"\\t\"}}{{.spec.containers[*].ports}}{{\"\\n\"}}{{end}}'",
                    kubectl(who)
                ),
            ],
        ),
        Network::NoReadyEndpoints => step(
            "The Service's pods exist but none is ready: diagnose the pods.",
            vec![format!("{} get pods --show-labels", kubectl(who))],
        ),
        Network::InsufficientPods => step(
            "Fewer pods are healthy than the budget requires: diagnose the workload it protects.",
            vec![describe(who)],
        ),
        Network::NoAddress | Network::PendingAddress => step(
            "No ingress controller has written an address: check that one is installed for this Ingress's class.",
            vec!["kubectl get ingressclass".into(), describe(who)],
        ),
        Network::PendingLoadBalancer => step(
            "No load balancer has been provisioned: check that a cloud controller manager or a load balancer implementation runs in the cluster.",
            vec![describe(who)],
        ),
        Network::EndpointsReady
        | Network::EndpointsNotRead
        | Network::WaitingForEndpoints
        | Network::ExternalName
        | Network::Address
        | Network::WaitingForParents
        | Network::SufficientPods
        | Network::NoDisruptionsAllowed => return None,
    })
}
