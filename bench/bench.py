#!/usr/bin/env python3
"""Side-by-side benchmark of kubectl-reconcile against its peers.

Starts a private test control plane (tests/cluster/up under its own state
directory, so the shared cluster of the e2e tests is never touched), fills it
with a workload (generated CRDs and custom objects, a Deployment `web` in a
namespace full of Events, a Deployment `big` with thousands of pods on extra
kwok nodes), then asks the same questions of kubectl-reconcile, `kubectl get`,
kubectl-tree and kube-lineage, and measures each answer:

- requests, counted in the API server's audit log by User-Agent and time window;
- bytes on the wire, counted by a TCP relay in front of the API server (TLS is
  passed through untouched; handshakes are included);
- wall time, as paired ratios over interleaved runs (medians);
- peak RSS of the process (and any children it waited for), from /usr/bin/time
  (GNU time's %M), which forks it from a small process (see run_once).

Prints a Markdown table and writes it (and the raw measures as JSON) to --out.
Python 3 standard library only. See docs/performance.md.
"""

import argparse
import bisect
import concurrent.futures
import datetime
import http.client
import json
import math
import os
import platform
import random
import re
import shutil
import signal
import socket
import ssl
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLUSTER = os.path.join(REPO, "tests", "cluster")
GROUP = "bench.reconcile.test"
TREE_LABEL = GROUP + "/tree"
PLUGIN = "kubectl-reconcile"
# `kubectl get` told every type the plugin's sweep lists (found by running the
# plugin once with -v 6): the same question, asked as a person would, so that
# the servers' CPU per answer compares like with like.
SAME_TYPES = "kubectl get (same types)"
PEERS = ("kubectl get", SAME_TYPES, "kubectl-tree", "kube-lineage")


def log(msg):
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def die(msg, hint=None):
    print(f"[bench] error: {msg}", file=sys.stderr)
    if hint:
        print(f"hint: {hint}", file=sys.stderr)
    sys.exit(2)


# --- settings -----------------------------------------------------------------

SCALES = {
    # name: pods in `big`, CRDs, custom objects, Events in the namespace, timed rounds
    "full": dict(pods=5000, crds=300, objects=10000, events=5000, runs=7, namespaces=10, broken=10),
    "small": dict(pods=200, crds=20, objects=1000, events=500, runs=5, namespaces=4, broken=4),
    # The large cluster of issue 24: 1,500 CRDs, 60,000 custom roots over 200 namespaces.
    "large": dict(pods=5000, crds=1500, objects=60000, events=5000, runs=5, namespaces=200, broken=10),
}
QUESTIONS = ["web", "big", "cr", "status", "status-all", "why-all", "watch", "watch-all"]


def env_int(name, default):
    value = os.environ.get(name)
    return int(value) if value else default


def parse_args():
    cache_root = os.environ.get("KUBECTL_RECONCILE_TEST_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "kubectl-reconcile-test")
    p = argparse.ArgumentParser(
        description="Benchmark kubectl-reconcile against kubectl get, kubectl-tree and kube-lineage "
                    "on a private test control plane.",
        epilog="Every size flag also reads an environment variable (BENCH_PODS, BENCH_CRDS, "
               "BENCH_OBJECTS, BENCH_EVENTS, BENCH_RUNS, BENCH_NAMESPACES, BENCH_BROKEN); flags win.")
    p.add_argument("binary", nargs="?", default=os.path.join(REPO, "target", "release", PLUGIN),
                   help="the kubectl-reconcile binary to measure (default: target/release/kubectl-reconcile)")
    p.add_argument("--scale", choices=sorted(SCALES), default=os.environ.get("BENCH_SCALE", "full"),
                   help="preset sizes: full (5,000 pods, 300 CRDs, 10,000 objects over 10 namespaces, "
                        "5,000 events), small (200, 20, 1,000 over 4, 500) or large (5,000, 1,500, "
                        "60,000 over 200, 5,000); default full")
    p.add_argument("--pods", type=int, help="replicas of Deployment big")
    p.add_argument("--crds", type=int, help="generated CustomResourceDefinitions")
    p.add_argument("--objects", type=int, help="generated custom objects, spread over the CRDs")
    p.add_argument("--events", type=int, help="core/v1 Events in the namespace (topped up to this many)")
    p.add_argument("--namespaces", type=int,
                   help="namespaces the custom objects are spread over, the benchmark's own first")
    p.add_argument("--broken", type=int,
                   help="custom objects made failed (Ready=False, Stalled=True), all outside the benchmark's "
                        "namespace, for `why -A` to find")
    p.add_argument("--watch-seconds", type=float, default=15,
                   help="how long `status --watch` runs before it is interrupted (default 15)")
    p.add_argument("--runs", type=int, help="timed rounds (interleaved, shuffled); medians over them")
    p.add_argument("--web-pods", type=int, default=3, help="replicas of Deployment web (default 3)")
    p.add_argument("--pods-per-node", type=int, default=500,
                   help="pod capacity of each extra kwok node (default 500)")
    p.add_argument("--questions", default=",".join(QUESTIONS),
                   help="comma-separated subset of: " + ", ".join(QUESTIONS))
    p.add_argument("--peers", default=",".join(PEERS),
                   help="comma-separated peers to measure beside the plugin (default: " + ",".join(PEERS) + ")")
    p.add_argument("--kubectl", default=os.environ.get("BENCH_KUBECTL"),
                   help="the kubectl to measure (default: kubectl on PATH; if that is gcloud's dispatcher, "
                        "the newest kubectl.1.N beside it, so that no dispatcher request or exec is counted)")
    p.add_argument("--namespace", default="bench")
    p.add_argument("--state", default=os.environ.get("BENCH_STATE") or os.path.join(cache_root, "bench-cluster"),
                   help="state directory of the private cluster (default ~/.cache/kubectl-reconcile-test/bench-cluster)")
    p.add_argument("--keep", action="store_true",
                   help="leave the cluster running at the end; a later run with the same sizes reuses it and its workload")
    p.add_argument("--out", default=os.path.join(REPO, "bench", "results", "latest.md"),
                   help="where to write the Markdown table (the raw measures go beside it as .json)")
    p.add_argument("--report", metavar="RUN.json",
                   help="print the table of a saved run (the .json beside its Markdown) again, with this "
                        "harness's checks; starts no cluster and measures nothing")
    args = p.parse_args()
    if args.report:
        return args
    scale = SCALES[args.scale]
    for key in ("pods", "crds", "objects", "events", "runs", "namespaces", "broken"):
        if getattr(args, key) is None:
            setattr(args, key, env_int("BENCH_" + key.upper(), scale[key]))
    args.questions = [q.strip() for q in args.questions.split(",") if q.strip()]
    args.peers = [t.strip() for t in args.peers.split(",") if t.strip()]
    for t in args.peers:
        if t not in PEERS:
            die(f"unknown peer {t!r}", "choose from: " + ", ".join(PEERS))
    for q in args.questions:
        if q not in QUESTIONS:
            die(f"unknown question {q!r}", "choose from " + ", ".join(QUESTIONS))
    if args.runs < 1:
        die("--runs must be at least 1", "the medians and ratios need at least one timed round")
    if args.namespaces < 1:
        die("--namespaces must be at least 1", "the benchmark's own namespace is the first")
    if args.broken and args.namespaces < 2:
        die("--broken needs --namespaces of at least 2", "failed objects go outside the benchmark's namespace")
    if args.crds < 2:
        die("--crds must be at least 2", "the custom-resource tree needs a root kind and a child kind")
    args.binary = os.path.abspath(args.binary)
    if not os.access(args.binary, os.X_OK):
        die(f"{args.binary} is not an executable",
            "build it with `cargo build --release`, or pass the binary to measure as the first argument")
    args.state = os.path.abspath(args.state)
    shared = {os.path.abspath(os.path.join(cache_root, "cluster"))}
    if os.environ.get("KUBECTL_RECONCILE_TEST_STATE"):
        shared.add(os.path.abspath(os.environ["KUBECTL_RECONCILE_TEST_STATE"]))
    if args.state in shared:
        die(f"--state {args.state} is the shared test cluster's", "the benchmark stops and removes its cluster at the end; "
            "give it a directory of its own (the default is ~/.cache/kubectl-reconcile-test/bench-cluster)")
    args.kubectl = resolve_kubectl(args.kubectl)
    return args


def resolve_kubectl(wanted):
    path = shutil.which(wanted or "kubectl")
    if not path:
        die(f"{wanted or 'kubectl'} is not installed or not on PATH",
            "install kubectl 1.30 or later, or pass --kubectl PATH; it is one of the peers and drives the cluster")
    if wanted:
        return path
    # gcloud's kubectl is a dispatcher: it asks the server's /version on every
    # run, then runs a versioned kubectl. Measure the versioned one directly.
    out = subprocess.run([path, "version", "--client"], capture_output=True, text=True).stdout
    if "-dispatcher" in out:
        real = os.path.realpath(path)
        folder = os.path.dirname(real)
        versions = sorted((int(n.rsplit(".", 1)[1]), n) for n in os.listdir(folder)
                          if n.startswith("kubectl.1.") and n.rsplit(".", 1)[1].isdigit())
        if versions:
            chosen = os.path.join(folder, versions[-1][1])
            log(f"{path} is gcloud's kubectl dispatcher; measuring {chosen} instead (pass --kubectl to choose)")
            return chosen
    return path


# --- the private cluster --------------------------------------------------------

def cluster_env(state):
    env = dict(os.environ)
    env["KUBECTL_RECONCILE_TEST_STATE"] = state
    return env


def cluster_up(state):
    log(f"starting a private control plane in {state}")
    out = subprocess.run([os.path.join(CLUSTER, "up")], env=cluster_env(state), check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    info = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
    ports = dict(line.split("=", 1) for line in open(os.path.join(state, "ports")).read().splitlines() if "=" in line)
    info["API_PORT"] = int(ports["API_PORT"])
    return info


def cluster_down(state):
    log("stopping the private control plane")
    subprocess.run([os.path.join(CLUSTER, "down")], env=cluster_env(state), check=False)


class Api:
    """A small HTTPS client over the admin certificates, one connection per thread."""

    def __init__(self, state, port):
        pki = os.path.join(state, "pki")
        self.ctx = ssl.create_default_context(cafile=os.path.join(pki, "ca.crt"))
        self.ctx.load_cert_chain(os.path.join(pki, "admin.crt"), os.path.join(pki, "admin.key"))
        self.port = port
        self.local = threading.local()

    def _conn(self):
        conn = getattr(self.local, "conn", None)
        if conn is None:
            conn = http.client.HTTPSConnection("127.0.0.1", self.port, context=self.ctx, timeout=120)
            self.local.conn = conn
        return conn

    def call(self, method, path, body=None, retry_statuses=(429, 500, 503, 504), deadline=120):
        """Returns (status, decoded JSON). Retries throttling and not-yet-served answers."""
        end = time.monotonic() + deadline
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json", "Accept": "application/json",
                   "User-Agent": "kubectl-reconcile-bench"}
        delay = 0.2
        while True:
            try:
                conn = self._conn()
                conn.request(method, path, body=data, headers=headers)
                resp = conn.getresponse()
                raw = resp.read()
                status = resp.status
            except (OSError, http.client.HTTPException) as err:
                self.local.conn = None
                if time.monotonic() > end:
                    raise RuntimeError(f"{method} {path}: {err}") from err
                time.sleep(delay)
                continue
            if status in retry_statuses and time.monotonic() < end:
                time.sleep(delay)
                delay = min(delay * 2, 2.0)
                continue
            return status, (json.loads(raw) if raw else None)

    def get(self, path, **kw):
        status, doc = self.call("GET", path, **kw)
        if status != 200:
            raise RuntimeError(f"GET {path}: HTTP {status}: {doc and doc.get('message')}")
        return doc

    def create(self, path, obj, retry_statuses=(429, 500, 503, 504)):
        """POST; an object that already exists counts as created (reruns with --keep)."""
        status, doc = self.call("POST", path, obj, retry_statuses=retry_statuses)
        if status not in (200, 201, 202, 409):
            raise RuntimeError(f"POST {path} {obj['metadata'].get('name') or obj['metadata'].get('generateName')}: HTTP {status}: {doc and doc.get('message')}")
        return doc

    def list_all(self, path, selector=None):
        items, cont = [], None
        while True:
            query = {"limit": 500}
            if selector:
                query["labelSelector"] = selector
            if cont:
                query["continue"] = cont
            doc = self.get(path + "?" + urllib.parse.urlencode(query))
            items.extend(doc.get("items") or [])
            cont = (doc.get("metadata") or {}).get("continue")
            if not cont:
                return items

    def count(self, path):
        doc = self.get(path + ("&" if "?" in path else "?") + "limit=1")
        return len(doc.get("items") or []) + int((doc.get("metadata") or {}).get("remainingItemCount") or 0)


def bulk(label, items, fn, workers=8):
    started = time.monotonic()
    done = 0
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        for _ in pool.map(fn, items):
            done += 1
            if done % 2000 == 0:
                log(f"  {label}: {done}/{len(items)}")
    log(f"  {label}: {len(items)} in {time.monotonic() - started:.1f}s")


# --- the workload ---------------------------------------------------------------

def rfc3339(ts):
    return datetime.datetime.fromtimestamp(ts, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def kind_of(i):
    return f"Part{i:03d}"


def plural_of(i):
    return f"part{i:03d}s"


def node(name, pods):
    # The same shape as the two nodes tests/cluster/up makes: kwok plays every
    # node annotated kwok.x-k8s.io/node=fake.
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name,
                     "annotations": {"kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0"},
                     "labels": {"type": "kwok", "kubernetes.io/hostname": name,
                                "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64"}},
        "status": {"allocatable": {"cpu": "32", "memory": "256Gi", "pods": str(pods)},
                   "capacity": {"cpu": "32", "memory": "256Gi", "pods": str(pods)}},
    }


def crd(i):
    return {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural_of(i)}.{GROUP}", "labels": {"bench.reconcile.test/generated": "true"}},
        "spec": {
            "group": GROUP, "scope": "Namespaced",
            "names": {"kind": kind_of(i), "plural": plural_of(i), "singular": plural_of(i)[:-1],
                      "listKind": kind_of(i) + "List", "categories": ["bench"]},
            "versions": [{
                "name": "v1", "served": True, "storage": True,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
                "additionalPrinterColumns": [
                    {"name": "Ready", "type": "string", "jsonPath": '.status.conditions[?(@.type=="Ready")].status'}],
            }],
        },
    }


def custom_object(i, name, ns, owner=None, labels=None, now=None, broken=False):
    obj = {
        "apiVersion": f"{GROUP}/v1", "kind": kind_of(i),
        "metadata": {"name": name, "namespace": ns, "labels": dict(labels or {}, **{"app.kubernetes.io/part-of": "bench"})},
        "spec": {"replicas": 1, "size": "small", "endpoint": f"https://{name}.example.test:8443",
                 "tags": ["bench", kind_of(i).lower()], "settings": {"retries": 3, "timeoutSeconds": 30}},
        # No status subresource on these CRDs, so the status is written with the object.
        "status": {"observedGeneration": 1,
                   "conditions": [{"type": "Ready", "status": "True", "reason": "Reconciled",
                                   "message": "all parts are available", "observedGeneration": 1,
                                   "lastTransitionTime": rfc3339(now or time.time())}]},
    }
    if broken:
        # A failure its controller has given up on, in kstatus's terms.
        since = rfc3339(now or time.time())
        obj["status"]["conditions"] = [
            {"type": "Ready", "status": "False", "reason": "ReconcileFailed", "observedGeneration": 1,
             "message": f"endpoint {obj['spec']['endpoint']} refused the connection", "lastTransitionTime": since},
            {"type": "Stalled", "status": "True", "reason": "ReconcileFailed", "observedGeneration": 1,
             "message": "retries exhausted", "lastTransitionTime": since}]
    if owner:
        obj["metadata"]["ownerReferences"] = [owner]
    return obj


def namespace_of(args, k):
    """Where custom object k goes: round-robin over the namespaces, the benchmark's own first."""
    j = k % args.namespaces
    return args.namespace if j == 0 else f"{args.namespace}-{j:03d}"


def broken_objects(args):
    """The custom objects made failed: one per namespace in turn, none in the benchmark's own,
    and spread over each namespace's objects (so over their kinds too)."""
    if not args.broken:
        return set()
    others = args.namespaces - 1
    per_namespace = max(1, args.objects // args.namespaces)
    picked = set()
    for j in range(args.broken):
        # Object k lives in namespace k % namespaces (see namespace_of).
        k = 1 + j % others + args.namespaces * ((j * per_namespace) // args.broken)
        if k < args.objects:
            picked.add(k)
    return picked


def cr_tree(crds):
    """The custom-resource tree, parents first: (kind index, name, parent name).
    Part000/root owns a child of each of five kinds; each child owns two grandchildren."""
    nodes = [(0, "root", None)]
    for j in range(1, 6):
        nodes.append((j % crds or 1, f"root-c{j}", "root"))
    for j in range(1, 6):
        for g in range(2):
            nodes.append(((5 + j) % crds, f"root-c{j}-g{g}", f"root-c{j}"))
    return nodes


def owner_ref(obj):
    return {"apiVersion": obj["apiVersion"], "kind": obj["kind"], "name": obj["metadata"]["name"],
            "uid": obj["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}


def deployment(name, ns, replicas):
    return {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "namespace": ns, "labels": {"app": name}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{
                    "name": "app", "image": f"registry.example.test/bench/{name}:1.0",
                    "ports": [{"containerPort": 8080, "name": "http"}],
                    "env": [{"name": "MODE", "value": "bench"}],
                    "resources": {"requests": {"cpu": "1m", "memory": "1Mi"}},
                    "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080}},
                }]},
            },
        },
    }


NORMAL_REASONS = [("Pulled", "Container image \"registry.example.test/bench/app:1.0\" already present on machine"),
                  ("Created", "Created container: app"), ("Started", "Started container app")]
WARNING_REASONS = [("Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503"),
                   ("BackOff", "Back-off restarting failed container app in pod")]


def event(rng, ns, target, now, warning):
    reason, message = rng.choice(WARNING_REASONS if warning else NORMAL_REASONS)
    first = now - rng.uniform(60, 2400)
    return {
        "apiVersion": "v1", "kind": "Event",
        "metadata": {"generateName": f"{target['name']}.", "namespace": ns},
        "involvedObject": {"apiVersion": target["apiVersion"], "kind": target["kind"], "namespace": ns,
                           "name": target["name"], "uid": target["uid"],
                           **({"fieldPath": "spec.containers{app}"} if target["kind"] == "Pod" else {})},
        "reason": reason, "message": message, "type": "Warning" if warning else "Normal",
        "source": {"component": "kubelet", "host": target.get("node", "")},
        "reportingComponent": "kubelet", "reportingInstance": target.get("node", ""),
        "firstTimestamp": rfc3339(first), "lastTimestamp": rfc3339(min(now, first + rng.uniform(0, 600))),
        "count": rng.randint(1, 5),
    }


def wait_until(what, limit, check, every=2.0):
    end = time.monotonic() + limit
    while True:
        state = check()
        if state is True:
            return
        if time.monotonic() > end:
            die(f"{what} not ready after {limit:.0f}s: {state}",
                "look at the private cluster's logs under --state/logs (run with --keep to keep them)")
        time.sleep(every)


def top_up_events(api, args):
    """The scheduler writes one Event per pod; tops the namespace up to --events
    with kubelet-shaped events about the pods and ReplicaSets, a tenth about web's.
    Also after a reuse: Events expire an hour after they are written."""
    ns, now = args.namespace, time.time()
    existing = api.count(f"/api/v1/namespaces/{ns}/events")
    missing = max(0, args.events - existing)
    if not missing:
        return
    targets = {"web": [], "big": []}
    for app in targets:
        for pod in api.list_all(f"/api/v1/namespaces/{ns}/pods", f"app={app}"):
            targets[app].append({"apiVersion": "v1", "kind": "Pod", "name": pod["metadata"]["name"],
                                 "uid": pod["metadata"]["uid"], "node": pod["spec"].get("nodeName", "")})
        for rs in api.list_all(f"/apis/apps/v1/namespaces/{ns}/replicasets", f"app={app}"):
            targets[app].append({"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs["metadata"]["name"],
                                 "uid": rs["metadata"]["uid"]})
    rng = random.Random(10)
    plan = []
    for seq in range(missing):
        app = "web" if seq % 10 == 0 or not targets["big"] else "big"
        plan.append((rng.choice(targets[app]), app == "big" and seq % 7 == 0, random.Random(seq)))
    bulk("events", plan, lambda p: api.create(f"/api/v1/namespaces/{ns}/events", event(p[2], ns, p[0], now, p[1])))


def build_workload(api, args):
    ns = args.namespace
    started = time.monotonic()
    now = time.time()
    log(f"workload: namespace {ns}, {args.crds} CRDs, {args.objects} objects over {args.namespaces} namespaces "
        f"({args.broken} failed), web x{args.web_pods}, big x{args.pods}, {args.events} events")
    namespaces = sorted({namespace_of(args, k) for k in range(min(args.objects, args.namespaces))} | {ns})
    bulk("namespaces", namespaces,
         lambda n: api.create("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": n}}))

    # Nodes: the two of `up` hold 500 pods each; add enough for every pod.
    extra = max(1, math.ceil((args.pods + args.web_pods) / args.pods_per_node))
    bulk("nodes", [f"bench-node-{i + 1}" for i in range(extra)],
         lambda n: api.create("/api/v1/nodes", node(n, args.pods_per_node)))

    def nodes_ready():
        items = api.get("/api/v1/nodes?labelSelector=type%3Dkwok")["items"]
        ready = [n for n in items if any(c["type"] == "Ready" and c["status"] == "True"
                                          for c in (n.get("status") or {}).get("conditions") or [])]
        capacity = sum(int(n["status"].get("allocatable", {}).get("pods", 0)) for n in ready)
        return True if len(ready) == len(items) == extra + 2 else f"{len(ready)}/{len(items)} ready, {capacity} pods of capacity"
    wait_until("the kwok nodes", 120, nodes_ready)

    # The Deployments first: the controller manager creates their pods at its
    # client's default 20 requests/s while the custom objects are made.
    for name, replicas in (("web", args.web_pods), ("big", args.pods)):
        api.create(f"/apis/apps/v1/namespaces/{ns}/deployments", deployment(name, ns, replicas))

    # CRDs, then their objects.
    bulk("CRDs", list(range(args.crds)),
         lambda i: api.create("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd(i)), workers=4)

    def crds_established():
        items = api.get("/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
                        "?labelSelector=bench.reconcile.test%2Fgenerated%3Dtrue")["items"]
        est = sum(1 for c in items if any(x["type"] == "Established" and x["status"] == "True"
                                          for x in (c.get("status") or {}).get("conditions") or []))
        return True if est >= args.crds else f"{est}/{args.crds} established"
    wait_until("the CRDs", 60 + args.crds, crds_established)

    def cr_path(i, where=ns):
        return f"/apis/{GROUP}/v1/namespaces/{where}/{plural_of(i)}"
    # A freshly established CRD can answer 404 or 429 ("storage is (re)initializing") for a moment.
    crs_retry = (404, 429, 500, 503, 504)

    # The custom-resource tree, labelled so that `kubectl get -l` finds it too,
    # with a ConfigMap owned by the root as an operator would make.
    labels = {TREE_LABEL: "root"}
    made = {}
    for i, name, parent in cr_tree(args.crds):
        owner = owner_ref(made[parent]) if parent else None
        api.create(cr_path(i), custom_object(i, name, ns, owner, labels, now), retry_statuses=crs_retry)
        made[name] = api.get(f"{cr_path(i)}/{name}")
    api.create(f"/api/v1/namespaces/{ns}/configmaps",
               {"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "root-settings", "namespace": ns, "labels": labels,
                             "ownerReferences": [owner_ref(made["root"])]},
                "data": {"mode": "bench"}})

    broken = broken_objects(args)
    bulk("custom objects", list(range(args.objects)),
         lambda k: api.create(cr_path(k % args.crds, namespace_of(args, k)),
                              custom_object(k % args.crds, f"o-{k:05d}", namespace_of(args, k), now=now,
                                            broken=k in broken),
                              retry_statuses=crs_retry))

    def rolled_out():
        states = []
        for name, replicas in (("web", args.web_pods), ("big", args.pods)):
            st = api.get(f"/apis/apps/v1/namespaces/{ns}/deployments/{name}").get("status") or {}
            if st.get("readyReplicas", 0) != replicas or st.get("updatedReplicas", 0) != replicas:
                states.append(f"{name} {st.get('readyReplicas', 0)}/{replicas} ready")
        return True if not states else ", ".join(states)
    wait_until("the Deployments", 120 + args.pods * 0.25, rolled_out, every=3)

    top_up_events(api, args)

    counts = {
        "pods": api.count(f"/api/v1/namespaces/{ns}/pods"),
        "events": api.count(f"/api/v1/namespaces/{ns}/events"),
        "crds": args.crds,
        "objects": args.objects + len(cr_tree(args.crds)),
        "in_namespace": len(range(0, args.objects, args.namespaces)) + len(cr_tree(args.crds)),
        "namespaces": len(namespaces),
        "broken": len(broken),
        "nodes": extra + 2,
    }
    log(f"workload ready in {time.monotonic() - started:.0f}s: {counts}")
    return counts


# --- measuring ------------------------------------------------------------------

class Relay:
    """Counts the bytes of every TCP connection it forwards to the API server."""

    def __init__(self, upstream_port):
        self.upstream = upstream_port
        self.lock = threading.Lock()
        self.down = self.up = self.connections = self.open = 0
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(256)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client):
        try:
            server = socket.create_connection(("127.0.0.1", self.upstream))
        except OSError:
            client.close()
            return
        for s in (client, server):
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self.lock:
            self.connections += 1
            self.open += 1
        pumps = [threading.Thread(target=self._pump, args=(client, server, "up"), daemon=True),
                 threading.Thread(target=self._pump, args=(server, client, "down"), daemon=True)]
        for t in pumps:
            t.start()
        for t in pumps:
            t.join()
        client.close()
        server.close()
        with self.lock:
            self.open -= 1

    def _pump(self, src, dst, direction):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
                with self.lock:
                    setattr(self, direction, getattr(self, direction) + len(data))
        except OSError:
            pass
        finally:
            try:
                dst.shutdown(socket.SHUT_WR)
            except OSError:
                pass

    def take(self):
        """Waits for the connections to close, then returns and resets the counters."""
        end = time.monotonic() + 3
        while self.open and time.monotonic() < end:
            time.sleep(0.02)
        with self.lock:
            out = {"down": self.down, "up": self.up, "connections": self.connections}
            self.down = self.up = self.connections = 0
        return out


def kubeconfig_via(src, dst, port):
    text = open(src).read()
    lines = [(f"    server: https://127.0.0.1:{port}" if line.strip().startswith("server:") else line)
             for line in text.splitlines()]
    with open(dst, "w") as f:
        f.write("\n".join(lines) + "\n")


def tools_for(question, ns, crds, plugin, kubectl, peers, wanted, watch_seconds=15):
    """The commands that answer one question, by tool name; the plugin first."""
    cr_kinds = ",".join(f"{plural_of(i)}.{GROUP}" for i in sorted({i for i, _, _ in cr_tree(crds)}))
    q = {
        "web": {
            PLUGIN: [plugin, "tree", "deploy/web", "-n", ns],
            "kubectl get": [kubectl, "get", "deploy,rs,pods", "-l", "app=web", "-n", ns],
            "kubectl-tree": [peers.get("kubectl-tree"), "deployment", "web", "-n", ns],
            "kube-lineage": [peers.get("kube-lineage"), "deployment/web", "-n", ns],
        },
        "big": {
            PLUGIN: [plugin, "tree", "deploy/big", "-n", ns],
            "kubectl get": [kubectl, "get", "deploy,rs,pods", "-l", "app=big", "-n", ns],
            "kubectl-tree": [peers.get("kubectl-tree"), "deployment", "big", "-n", ns],
            "kube-lineage": [peers.get("kube-lineage"), "deployment/big", "-n", ns],
        },
        "cr": {
            PLUGIN: [plugin, "tree", f"{plural_of(0)}.{GROUP}/root", "-n", ns],
            "kubectl get": [kubectl, "get", cr_kinds + ",configmaps", "-l", f"{TREE_LABEL}=root", "-n", ns],
            "kubectl-tree": [peers.get("kubectl-tree"), f"{plural_of(0)}.{GROUP}", "root", "-n", ns],
            "kube-lineage": [peers.get("kube-lineage"), f"{plural_of(0)}.{GROUP}/root", "-n", ns],
        },
        "status": {
            PLUGIN: [plugin, "status", "-n", ns],
            "kubectl get": [kubectl, "get", "all", "-n", ns],
        },
        "status-all": {
            PLUGIN: [plugin, "status", "-A"],
            "kubectl get": [kubectl, "get", "all", "-A"],
        },
        "why-all": {
            PLUGIN: [plugin, "why", "-A"],
        },
        # Interrupted as a user would with Ctrl-C; timeout(1) is GNU time's child,
        # so the peak RSS is still the plugin's.
        "watch": {
            PLUGIN: ["timeout", "-s", "INT", f"{watch_seconds:g}", plugin, "status", "-n", ns, "--watch"],
        },
        "watch-all": {
            PLUGIN: ["timeout", "-s", "INT", f"{watch_seconds:g}", plugin, "status", "-A", "--watch"],
        },
    }[question]
    return {name: argv for name, argv in q.items() if argv[0] and (name == PLUGIN or name in wanted)}


# Which peers answer the same question as the plugin, for the request
# count: for a custom-resource root `kubectl get` is told the kinds (the
# plugin and the tree peers find them), and `kubectl get all` lists the nine
# types of the `all` category where `status` reads every type with a status,
# custom resources included.
SAME_QUESTION = {
    "web": {"kubectl get", "kubectl-tree", "kube-lineage"},
    "big": {"kubectl get", "kubectl-tree", "kube-lineage"},
    "cr": {"kubectl-tree", "kube-lineage"},
    "status": {SAME_TYPES},
    "status-all": {SAME_TYPES},
    "why-all": set(),
    "watch": set(),
    "watch-all": set(),
}

TITLES = {
    "web": "`tree deploy/web` (3 pods, namespace full of Events)",
    "big": "`tree deploy/big` (all the pods)",
    "cr": "custom-resource root `tree part000s.bench.reconcile.test/root` (16 custom objects and a ConfigMap)",
    "status": "namespace `status`",
    "status-all": "`status -A` (every namespace)",
    "why-all": "`why -A` (every namespace)",
    "watch": "namespace `status --watch`, interrupted after its run time",
    "watch-all": "`status -A --watch`, interrupted after its run time",
}


LIST_PATH = re.compile(r"^(?:/api/(?P<cv>v1)|/apis/(?P<g>[^/]+)/(?P<v>[^/]+))(?:/namespaces/[^/]+)?/(?P<r>[^/?]+)$")


def types_listed(argv, env):
    """The types a run of the plugin lists, as `kubectl get` names them
    (`deployments.v1.apps`, `pods`), read from its own -v 6 request lines."""
    run = subprocess.run(argv + ["-v", "6"], env=env, capture_output=True, text=True, timeout=600)
    types = []
    for line in run.stderr.splitlines():
        parts = line.split()
        at = next((i for i, w in enumerate(parts) if w == "GET"), None)
        if at is None or at + 1 >= len(parts):
            continue
        uri = urllib.parse.urlsplit(parts[at + 1])
        m = LIST_PATH.match(uri.path)
        if not m or "continue=" in uri.query or "watch=" in uri.query:
            continue
        name = m["r"] if m["cv"] else f"{m['r']}.{m['v']}.{m['g']}"
        if name not in types and m["r"] != "namespaces":
            types.append(name)
    if not types:
        die(f"found no list in the -v 6 log of {' '.join(argv)}", run.stderr[-400:])
    return types


def user_agent_prefix(tool, argv):
    """client-go names itself after its program's file name (kubectl.1.33/v1.33.1 ...);
    the plugin sends kubectl-reconcile/<version> whatever its file is called."""
    return PLUGIN + "/" if tool == PLUGIN else os.path.basename(argv[0]) + "/"


# The peak RSS of a tool is measured by /usr/bin/time, which forks it from a
# small process. A child forked from this harness instead starts with the
# harness's own high-water mark (Linux keeps it across exec), so wait4 here
# would report at least the harness's ~150 MiB for a tool that needs 16.
TIME = "/usr/bin/time"


def server_pids(state):
    """The private cluster's kube-apiserver and etcd: the processes whose command line names its state directory."""
    pids = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
        except OSError:
            continue
        name = os.path.basename(cmd[0]).decode(errors="replace") if cmd and cmd[0] else ""
        if (name.startswith("kube-apiserver") or name.startswith("etcd")) and any(state.encode() in a for a in cmd):
            pids.append(int(pid))
    return pids


def cpu_seconds(pids):
    """User and system CPU time the processes have used so far."""
    total = 0
    for pid in pids:
        try:
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


def idle_cpu_rate(pids, seconds=5.0):
    """The servers' CPU use per second with no tool running (controllers, kwok, watches)."""
    c0, t0 = cpu_seconds(pids), time.perf_counter()
    time.sleep(seconds)
    return (cpu_seconds(pids) - c0) / (time.perf_counter() - t0)


SERVER = {"pids": [], "idle": 0.0}


def run_once(argv, env, out_dir, tag):
    """Runs one command; returns wall seconds, peak RSS, exit code, time window, output lines, and the
    API server's and etcd's CPU seconds over the run, less what they spend idle in that time."""
    out_path = os.path.join(out_dir, tag + ".out")
    err_path = os.path.join(out_dir, tag + ".err")
    rss_path = os.path.join(out_dir, tag + ".rss")
    if not os.access(TIME, os.X_OK):
        die(f"{TIME} is not installed", "install GNU time (apt-get install time): it measures each tool's own peak memory")
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        t0 = time.time()
        cpu0 = cpu_seconds(SERVER["pids"])
        p0 = time.perf_counter()
        proc = subprocess.Popen([TIME, "-f", "%U %S %M", "-o", rss_path, *argv], stdout=out, stderr=err,
                                stdin=subprocess.DEVNULL, env=env)
        _, status, _ = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - p0
        server_cpu = max(0.0, cpu_seconds(SERVER["pids"]) - cpu0 - SERVER["idle"] * wall)
        t1 = time.time()
    proc.returncode = os.waitstatus_to_exitcode(status)
    with open(out_path, "rb") as f:
        lines = sum(1 for _ in f)
    with open(rss_path) as f:
        # GNU time writes "Command exited with non-zero status N" first then.
        user, system, rss_kib = f.read().split()[-3:]
    return {"wall": wall, "rss_kib": int(rss_kib), "exit": proc.returncode, "t0": t0, "t1": t1, "lines": lines,
            "server_cpu": server_cpu, "cpu": float(user) + float(system)}


def audit_requests(audit_log, offset, records):
    """Fills records[i]['requests'] from the audit log: the tool's User-Agent within the run's window."""
    time.sleep(1.0)  # the last events of a run reach the file just after its response
    # The runs are sequential, so their windows do not overlap: one bisection per line.
    spans = sorted((r["t0"] - 0.005, r["t1"] + 0.005, r["ua"], i) for i, r in enumerate(records))
    starts = [lo for lo, _, _, _ in spans]
    seen = [set() for _ in records]
    uris = [[] for _ in records]
    with open(audit_log, "rb") as f:
        f.seek(offset)
        for line in f:
            try:
                ev = json.loads(line)
                ts = datetime.datetime.fromisoformat(ev["requestReceivedTimestamp"].replace("Z", "+00:00")).timestamp()
            except (ValueError, KeyError):
                continue
            k = bisect.bisect_right(starts, ts) - 1
            if k < 0:
                continue
            _, hi, prefix, i = spans[k]
            if ts <= hi and (ev.get("userAgent") or "").startswith(prefix) and ev.get("auditID") not in seen[i]:
                seen[i].add(ev.get("auditID"))
                uris[i].append(f"{ev.get('verb')} {ev.get('requestURI')}")
    for r, ids, paths in zip(records, seen, uris):
        r["requests"] = len(ids)
        if r["kind"] == "relay":
            r["uris"] = paths
            if not paths:
                log(f"  warning: no request of {r['tool']} ({r['ua']}...) found in the audit log for {r['question']}")


def measure(args, info, counts, peers):
    ns = args.namespace
    home = os.path.join(args.state, "bench-home")
    out_dir = os.path.join(args.state, "bench-output")
    os.makedirs(home, exist_ok=True)
    os.makedirs(out_dir, exist_ok=True)
    relay = Relay(info["API_PORT"])
    direct_kc = info["KUBECONFIG"]
    relay_kc = os.path.join(args.state, "relay.kubeconfig")
    kubeconfig_via(direct_kc, relay_kc, relay.port)

    def env(kc):
        # A private HOME keeps every tool's discovery cache apart from the user's.
        return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "KUBECONFIG": kc,
                "XDG_CACHE_HOME": os.path.join(home, ".cache"), "XDG_CONFIG_HOME": os.path.join(home, ".config"),
                "NO_COLOR": "1", "LANG": "C.UTF-8"}

    questions = {q: tools_for(q, ns, args.crds, args.binary, args.kubectl, peers, args.peers, args.watch_seconds)
                 for q in args.questions}
    if SAME_TYPES in args.peers:
        for q in ("status", "status-all"):
            if q in questions:
                types = types_listed(questions[q][PLUGIN], env(direct_kc))
                where = ["-A"] if q == "status-all" else ["-n", ns]
                questions[q][SAME_TYPES] = [args.kubectl, "get", ",".join(types)] + where
                log(f"{SAME_TYPES} for {q}: {len(types)} types")
    audit_offset = os.path.getsize(info["AUDIT_LOG"])
    records = []

    log("warm-up: one run of each command, direct and through the relay (discovery caches fill)")
    for q, tools in questions.items():
        for name, argv in tools.items():
            for kc in (direct_kc, relay_kc):
                r = run_once(argv, env(kc), out_dir, f"{q}-{name.replace(' ', '-')}-warm")
                if r["exit"] not in ((0, 1, 124) if q.startswith("watch") else (0, 1)):
                    err = open(os.path.join(out_dir, f"{q}-{name.replace(' ', '-')}-warm.err")).read().strip()
                    log(f"  warning: {name} exited {r['exit']} on {q}: {err[-400:]}")
            relay.take()

    log("bytes: one run of each command through the relay")
    for q, tools in questions.items():
        for name, argv in tools.items():
            r = run_once(argv, env(relay_kc), out_dir, f"{q}-{name.replace(' ', '-')}")
            r.update(relay.take(), question=q, tool=name, kind="relay", ua=user_agent_prefix(name, argv))
            records.append(r)

    SERVER["pids"] = server_pids(args.state)
    if len(SERVER["pids"]) < 2:
        log(f"  warning: found {len(SERVER['pids'])} of the cluster's kube-apiserver and etcd; server CPU is partial")
    SERVER["idle"] = idle_cpu_rate(SERVER["pids"])
    log(f"time and memory: {args.runs} interleaved rounds, direct to the API server "
        f"(servers idle at {SERVER['idle']:.2f} CPU s/s)")
    rng = random.Random(7)
    for round_ in range(args.runs):
        for q, tools in questions.items():
            order = list(tools)
            rng.shuffle(order)
            for name in order:
                r = run_once(tools[name], env(direct_kc), out_dir, "timed")
                r.update(question=q, tool=name, kind="timed", round=round_, ua=user_agent_prefix(name, tools[name]))
                records.append(r)
        log(f"  round {round_ + 1}/{args.runs}")

    audit_requests(info["AUDIT_LOG"], audit_offset, records)
    return questions, records


# --- report ---------------------------------------------------------------------

def fmt_bytes(n):
    if n >= 1 << 20:
        return f"{n / (1 << 20):.2f} MiB"
    if n >= 1 << 10:
        return f"{n / (1 << 10):.0f} KiB"
    return f"{n} B"


def span(values):
    lo, hi = min(values), max(values)
    return f"{lo}" if lo == hi else f"{lo}–{hi}"


def machine():
    model = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = 0
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                mem = int(line.split()[1]) / (1 << 20)
    except OSError:
        pass
    return f"{os.cpu_count()} CPUs ({model}), {mem:.0f} GiB memory, {platform.system()} {platform.release()}"


def version_of(argv):
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=10)
        return (out.stdout or out.stderr).strip().splitlines()[0]
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return "unknown"


def summarize(questions, records):
    """Per question and tool: the measures the table and the targets are made of."""
    out = {}
    for q, tools in questions.items():
        timed = {name: [r for r in records if r["question"] == q and r["tool"] == name and r["kind"] == "timed"]
                 for name in tools}
        relay = {name: next(r for r in records if r["question"] == q and r["tool"] == name and r["kind"] == "relay")
                 for name in tools}
        ours = {r["round"]: r["wall"] for r in timed[PLUGIN]}
        out[q] = {}
        for name in tools:
            runs, every = timed[name], timed[name] + [relay[name]]
            pairs = [r["wall"] / ours[r["round"]] for r in runs if r["round"] in ours]
            out[q][name] = {
                "requests": [r["requests"] for r in every], "down": relay[name]["down"], "up": relay[name]["up"],
                "connections": relay[name]["connections"], "wall": statistics.median(r["wall"] for r in runs),
                "ratio": statistics.median(pairs) if pairs else None,
                "rss": statistics.median(r["rss_kib"] for r in runs) / 1024, "lines": relay[name]["lines"],
                "server_cpu": statistics.median(r["server_cpu"] for r in runs),
                # Saved runs from before 2026-12-02 have no client CPU.
                "cpu": statistics.median(r.get("cpu", 0.0) for r in runs),
                "exits": sorted({r["exit"] for r in every}), "uris": relay[name].get("uris", []),
            }
    return out


def targets(summary):
    """Issue 10's targets, checked against this run: (met, what) pairs."""
    out = []

    def peers_of(q):
        return {n: m for n, m in summary.get(q, {}).items() if n != PLUGIN}
    if "kubectl get" in summary.get("web", {}):
        ratio = summary["web"]["kubectl get"]["ratio"]
        out.append((ratio >= 1, f"`tree deploy/web` no slower than `kubectl get deploy,rs,pods -l app=web` "
                                f"(peer ÷ plugin {ratio:.2f})"))
    if "big" in summary:
        ours = summary["big"][PLUGIN]
        if "kubectl get" in summary["big"]:
            theirs = summary["big"]["kubectl get"]["rss"]
            out.append((ours["rss"] < theirs, f"`tree deploy/big` peak RSS below `kubectl get`'s "
                                              f"({ours['rss']:.0f} vs {theirs:.0f} MiB)"))
        if "kubectl-tree" in summary["big"]:
            theirs = summary["big"]["kubectl-tree"]["down"]
            out.append((ours["down"] <= theirs, f"`tree deploy/big` downloads no more than kubectl-tree "
                                                f"({fmt_bytes(ours['down'])} vs {fmt_bytes(theirs)})"))
        slowest = min((m["ratio"], n) for n, m in peers_of("big").items()) if peers_of("big") else None
        if slowest:
            out.append((slowest[0] > 1, f"`tree deploy/big` faster than every peer (closest: {slowest[1]}, "
                                        f"peer ÷ plugin {slowest[0]:.2f})"))
    if "kubectl get" in summary.get("status", {}):
        ratio = summary["status"]["kubectl get"]["ratio"]
        out.append((ratio >= 1, f"namespace `status` no slower than `kubectl get all` (peer ÷ plugin {ratio:.2f})"))
    for q in ("status", "status-all"):
        if SAME_TYPES in summary.get(q, {}):
            ours, theirs = summary[q][PLUGIN]["server_cpu"], summary[q][SAME_TYPES]["server_cpu"]
            out.append((ours <= theirs, f"{TITLES[q].split(' (')[0]}: server CPU no more than `kubectl get` "
                                        f"of the same types ({ours:.2f} vs {theirs:.2f} s)"))
    for q, tools in summary.items():
        ours = max(tools[PLUGIN]["requests"])
        same = {n: m for n, m in peers_of(q).items() if n in SAME_QUESTION[q]}
        narrower = [f"{n} {min(m['requests'])}" for n, m in peers_of(q).items() if n not in same]
        aside = f"; asked a narrower question: {', '.join(narrower)}" if narrower else ""
        if not same:
            out.append((None, f"{TITLES[q].split(' (')[0]}: no peer answers the same question "
                              f"({ours} requests{aside})"))
            continue
        fewer = [f"{n} {min(m['requests'])}" for n, m in same.items() if min(m["requests"]) < ours]
        out.append((not fewer, f"{TITLES[q].split(' (')[0]}: no more requests than any peer answering "
                               f"the same question ({ours}{'; fewer: ' + ', '.join(fewer) if fewer else ''}"
                               f"{aside})"))
    return out


def type_of(path):
    """The resource type a list path reads, whatever its namespace: /apis/apps/v1/deployments."""
    parts = path.split("/")
    if "namespaces" in parts[:-1]:
        at = parts.index("namespaces")
        del parts[at:at + 2]
    return "/".join(parts)


def listed_types(uris):
    """The types a run listed, the lists of each beyond the first (one per further namespace),
    and its continued pages."""
    types, again, pages = set(), 0, 0
    for line in uris:
        verb, _, uri = line.partition(" ")
        if verb != "list":
            continue
        path, _, query = uri.partition("?")
        if "continue=" in query:
            pages += 1
        elif type_of(path) in types:
            again += 1
        else:
            types.add(type_of(path))
    return types, again, pages


# A sweep's requests beyond one list per type: discovery (/api, /apis, and
# revalidations), the namespace list, the events, and a few per-object gets.
SWEEP_CONSTANT = 12


def sweep_targets(summary, made_failed):
    """Issue 24's targets, checked against this run: (met, what) pairs."""
    out = []
    for q in ("status-all", "why-all"):
        if q in summary:
            rss = summary[q][PLUGIN]["rss"]
            out.append((rss < 200, f"`{q.replace('-all', ' -A')}` peak RSS under 200 MiB ({rss:.0f} MiB)"))
    types = {}
    for q in ("status", "status-all", "why-all"):
        if q in summary and summary[q][PLUGIN]["uris"]:
            m = summary[q][PLUGIN]
            listed, again, pages = listed_types(m["uris"])
            types[q] = listed
            if q == "why-all":
                continue  # checked against the sweep of `status -A` below, its reads per finding apart
            extra = len(m["uris"]) - len(listed) - pages
            out.append((extra <= SWEEP_CONSTANT,
                        f"`{TITLES[q].split('`')[1]}`: at most one list per type plus {SWEEP_CONSTANT} "
                        f"({len(m['uris'])} requests: {len(listed)} types listed, {pages} further pages, "
                        f"{extra} others, of which {again} lists of a type already listed)"))
    if "status-all" in types and "why-all" in types:
        uris = summary["why-all"][PLUGIN]["uris"]
        ours, theirs = len(uris), len(summary["status-all"][PLUGIN]["uris"])
        more = types["why-all"] - types["status-all"]
        # What `why` reads about each finding, which a status sweep does not:
        # the failing object again with its managedFields (who applies it),
        # and the events of its namespace.
        gets = sum(1 for line in uris if line.startswith("get ") and "/namespaces/" in line)
        events = sum(1 for line in uris if line.startswith("list ") and "/namespaces/" in line
                     and line.split("?")[0].endswith("/events"))
        findings = max(1, made_failed)
        _, again, _ = listed_types(uris)
        out.append((ours <= theirs + len(more) + gets + events and gets + events <= 2 * findings,
                    f"`why -A` no more requests than `status -A` plus the types it alone reads, plus at most "
                    f"two reads per finding ({ours} against {theirs} + {len(more)} types + {gets} gets of "
                    f"the {findings} objects made failed + {events} namespaces' events; {again} lists of a "
                    f"type already listed)"))
    if "watch" in summary and "status" in summary:
        w, one = summary["watch"][PLUGIN], summary["status"][PLUGIN]
        out.append((w["rss"] <= 1.3 * one["rss"], f"`status --watch` peak at most 1.3× the one-shot "
                                                  f"({w['rss']:.0f} ÷ {one['rss']:.0f} MiB = {w['rss'] / one['rss']:.2f}×)"))
        watches = sum(1 for line in w["uris"] if line.startswith("watch "))
        limit = math.ceil(watches / 48) + 1
        out.append((w["connections"] <= limit, f"`status --watch` opens at most ceil(watches/48) + 1 connections "
                                               f"({w['connections']} for {watches} watches; limit {limit})"))
    if "watch-all" in summary and "status-all" in summary:
        w, one = summary["watch-all"][PLUGIN], summary["status-all"][PLUGIN]
        out.append((w["rss"] <= 1.3 * one["rss"], f"`status -A --watch` peak at most 1.3× the one-shot "
                                                  f"({w['rss']:.0f} ÷ {one['rss']:.0f} MiB = {w['rss'] / one['rss']:.2f}×; "
                                                  f"its own CPU {w['cpu']:.2f} s in {w['wall']:.0f} s, the one-shot's "
                                                  f"{one['cpu']:.2f} s)"))
    return out


def report(args, counts, questions, records, peers, load_before):
    summary = summarize(questions, records)
    rows = []
    for q, tools in summary.items():
        rows.append(f"\n### {TITLES[q]}\n")
        rows.append("| tool | requests | bytes ↓ | bytes ↑ | connections | wall (median) | peer ÷ plugin time "
                    "| peak RSS (median) | server CPU (median) | output lines | exit |")
        rows.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        for name, m in tools.items():
            ratio = "1 (reference)" if name == PLUGIN else (f"{m['ratio']:.2f}" if m["ratio"] is not None else "–")
            rows.append(f"| {name} | {span(m['requests'])} | {fmt_bytes(m['down'])} | {fmt_bytes(m['up'])} "
                        f"| {m['connections']} | {m['wall']:.3f} s | {ratio} | {m['rss']:.0f} MiB "
                        f"| {m['server_cpu']:.2f} s | {m['lines']} "
                        f"| {','.join(map(str, m['exits']))} |")
        paths = tools[PLUGIN]["uris"]
        if paths:
            shown = paths[:25] + ([f"... and {len(paths) - 25} more"] if len(paths) > 25 else [])
            rows.append(f"\n<details><summary>the plugin's {len(paths)} requests</summary>\n\n```")
            rows.extend(shown)
            rows.append("```\n</details>")
    checks = targets(summary)
    if checks:
        rows.append("\n### Issue 10's targets in this run\n")
        rows.extend(f"- {'met' if ok else 'not comparable' if ok is None else '**missed**'}: {what}"
                    for ok, what in checks)
    checks = sweep_targets(summary, counts.get("broken", 0))
    if checks:
        rows.append("\n### Issue 24's targets in this run\n")
        rows.extend(f"- {'met' if ok else '**missed**'}: {what}" for ok, what in checks)
    head = [
        "## kubectl-reconcile benchmark",
        "",
        f"- date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
        f"- machine: {machine()}; load average before measuring: {load_before}",
        f"- workload in namespace `{args.namespace}`: Deployment `big` with {args.pods} pods and `web` with "
        f"{args.web_pods}, {counts['pods']} pods in all on {counts['nodes']} kwok nodes; {counts['events']} Events; "
        f"{counts['crds']} CRDs with {counts['objects']} custom objects over {counts.get('namespaces', 1)} namespaces "
        f"({counts.get('in_namespace', counts['objects'])} in `{args.namespace}`, {counts.get('broken', 0)} failed "
        f"elsewhere)",
        f"- {args.runs} interleaved rounds (order shuffled each round), warm caches; wall time and RSS are medians",
        f"- plugin: `{args.binary}` ({version_of([args.binary, '--version'])})",
        "- peers: " + "; ".join([f"kubectl {version_of([args.kubectl, 'version', '--client']).split()[-1]}"]
                                + [f"{n} {os.path.basename(os.path.dirname(p)).rsplit('-', 1)[-1]}"
                                   for n, p in sorted(peers.items())]),
        "",
        "requests: from the audit log, by User-Agent and time window (min–max over every run). "
        "bytes: through a TCP relay in front of the API server, TLS handshakes included. "
        "peer ÷ plugin time: the median of each round's ratio; above 1 the plugin is faster. "
        "server CPU: kube-apiserver's and etcd's user and system CPU time over a timed run, less their idle "
        "rate over the same time (measured for 5 s before the rounds), median over the rounds. "
        "exit 1 from the plugin means it found something not converged.",
    ]
    return "\n".join(head + rows) + "\n"


def build_peers():
    out = subprocess.run([os.path.join(REPO, "bench", "peers")], check=True, stdout=subprocess.PIPE, text=True).stdout
    info = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
    return {"kubectl-tree": info["KUBECTL_TREE"], "kube-lineage": info["KUBE_LINEAGE"]}


def report_again(args):
    """The table of a saved run, made again from its raw measures."""
    saved = json.load(open(args.report))
    for key, value in saved["settings"].items():
        if key not in ("report", "out"):
            setattr(args, key, value)
    questions = {q: tools_for(q, args.namespace, args.crds, args.binary, args.kubectl, {}, args.peers,
                              args.watch_seconds)
                 for q in args.questions}
    for r in saved["records"]:
        if r["tool"] == SAME_TYPES and r["question"] in questions:
            questions[r["question"]][SAME_TYPES] = [args.kubectl, "get"]
    print(report(args, saved["counts"], questions, saved["records"], {}, saved.get("load_before", "not recorded")))


def main():
    args = parse_args()
    if args.report:
        report_again(args)
        return
    started = time.monotonic()
    # A TERM or HUP stops the private cluster as Ctrl-C does.
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda *_: sys.exit(130))
    peers = build_peers() if {"kubectl-tree", "kube-lineage"} & set(args.peers) else {}
    try:
        info = cluster_up(args.state)
        api = Api(args.state, info["API_PORT"])
        marker = os.path.join(args.state, "bench-workload.json")
        wanted = {k: getattr(args, k)
                  for k in ("pods", "crds", "objects", "events", "web_pods", "namespace", "namespaces", "broken")}
        counts = None
        if os.path.exists(marker):
            saved = json.load(open(marker))
            if saved.get("wanted") == wanted:
                counts = saved["counts"]
                log("reusing the workload already in the cluster")
                top_up_events(api, args)
                counts["events"] = api.count(f"/api/v1/namespaces/{args.namespace}/events")
        if counts is None:
            counts = build_workload(api, args)
            json.dump({"wanted": wanted, "counts": counts}, open(marker, "w"))
        load_before = " ".join(open("/proc/loadavg").read().split()[:3])
        questions, records = measure(args, info, counts, peers)
        table = report(args, counts, questions, records, peers, load_before)
        print(table)
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w") as f:
            f.write(table)
        with open(os.path.splitext(args.out)[0] + ".json", "w") as f:
            json.dump({"settings": {k: v for k, v in vars(args).items()}, "counts": counts, "records": records,
                       "load_before": load_before}, f, indent=1)
        log(f"done in {time.monotonic() - started:.0f}s; table in {args.out}")
    finally:
        if args.keep:
            log(f"the private cluster keeps running; stop it with KUBECTL_RECONCILE_TEST_STATE={args.state} tests/cluster/down")
        else:
            cluster_down(args.state)


if __name__ == "__main__":
    main()
