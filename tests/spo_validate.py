#!/usr/bin/env python3
"""spo_validate.py - check polc's SPO/k8s outputs against the operator's own CRDs.

usage: spo_validate.py CRD_DIR FILE...

Each YAML document of each FILE whose apiVersion/kind a CRD in CRD_DIR
(../shared/peers/spo: SPO v1.0.0 and v0.8.4) serves is validated against that
version's openAPIV3Schema, strictly (an object with declared properties
takes no other key, as the API server's strict field validation does), and
against what the operator checks beyond the schema: a cluster-scoped kind
has no metadata.namespace, metadata.name is a DNS subdomain, and every path
of an AppArmorProfile's abstract matches SPO v1's ^/[a-zA-Z0-9_./*?+@{} -]*$.
Each apiVersion is checked against the CRD release that stores it (v1:
v1.0.0; SeccompProfile v1beta1: v0.8.4). A pod securityContext document must select a SeccompProfile the way the
operator of that apiVersion installs it (v1: operator/NAME.json).
Prints one line per object ("ok KIND VERSION NAME" or the errors) and exits
1 if any document fails, 2 on bad usage or an unreadable CRD.
"""
import copy
import glob
import os
import re
import sys

import jsonschema
import yaml

SPO_V1_PATH = re.compile(r'^/[a-zA-Z0-9_./*?+@{} -]*$')
DNS_SUBDOMAIN = re.compile(r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')


def strict(schema):
    """The schema with additionalProperties: false wherever properties are
    declared and unknown fields are not preserved explicitly."""
    s = copy.deepcopy(schema)

    def walk(n):
        if isinstance(n, dict):
            if ('properties' in n and 'additionalProperties' not in n
                    and not n.get('x-kubernetes-preserve-unknown-fields')):
                n['additionalProperties'] = False
            for v in n.values():
                walk(v)
        elif isinstance(n, list):
            for v in n:
                walk(v)
    walk(s)
    return s


def load_crds(crd_dir):
    """{(group/version, kind): (schema, scope, crd file)}"""
    crds = {}
    for path in sorted(glob.glob(os.path.join(crd_dir, '*.yaml'))):
        with open(path) as f:
            for crd in yaml.safe_load_all(f):
                if not crd or crd.get('kind') != 'CustomResourceDefinition':
                    continue
                spec = crd['spec']
                for v in spec['versions']:
                    # each version against the release that stores it: v1beta1
                    # SeccompProfiles are v0.8.4's (namespaced), v1 are v1.0.0's
                    if not v.get('storage'):
                        continue
                    key = (spec['group'] + '/' + v['name'], spec['names']['kind'])
                    crds.setdefault(key, [])
                    crds[key].append((strict(v['schema']['openAPIV3Schema']),
                                      spec['scope'], os.path.basename(path)))
    return crds


def abstract_paths(spec):
    a = spec.get('abstract') or {}
    for sec in ('executable', 'filesystem'):
        for lst in (a.get(sec) or {}).values():
            for p in lst or []:
                yield p


def check_object(doc, crds):
    key = (doc.get('apiVersion'), doc.get('kind'))
    if key not in crds:
        return None, ['no CRD in the peers serves %s %s' % key]
    errs, crdfiles = [], []
    for schema, scope, crdfile in crds[key]:
        crdfiles.append(crdfile)
        v = jsonschema.Draft7Validator(schema)
        for e in sorted(v.iter_errors(doc), key=lambda e: list(e.path)):
            errs.append('%s: %s: %s' % (crdfile, '.'.join(map(str, e.path)) or '(root)',
                                         e.message))
        meta = doc.get('metadata') or {}
        if scope == 'Cluster' and 'namespace' in meta:
            errs.append('%s: %s is cluster-scoped: metadata.namespace' % (crdfile, key[1]))
        if scope == 'Namespaced' and 'namespace' not in meta:
            errs.append('%s: %s is namespaced: no metadata.namespace' % (crdfile, key[1]))
    name = (doc.get('metadata') or {}).get('name', '')
    if not DNS_SUBDOMAIN.match(name) or len(name) > 253:
        errs.append('metadata.name %r is not a DNS subdomain' % name)
    if key[1] == 'AppArmorProfile':
        for p in abstract_paths(doc.get('spec') or {}):
            if not SPO_V1_PATH.match(p):
                errs.append('path %r breaks SPO v1\'s path rule' % p)
    return ','.join(sorted(set(crdfiles))), errs


def check_snippet(doc, objects):
    """The securityContext selects the profile of the file's object."""
    errs = []
    sc = doc.get('securityContext') or {}
    for obj in objects:
        name = obj['metadata']['name']
        if obj['kind'] == 'SeccompProfile':
            ns = obj['metadata'].get('namespace')
            want = 'operator/%s/%s.json' % (ns, name) if ns else 'operator/%s.json' % name
            got = (sc.get('seccompProfile') or {}).get('localhostProfile')
            if got != want:
                errs.append('localhostProfile %r, the operator installs %r' % (got, want))
        if obj['kind'] == 'AppArmorProfile':
            got = (sc.get('appArmorProfile') or {}).get('localhostProfile')
            if got != name:
                errs.append('appArmorProfile %r, not %r' % (got, name))
    return errs


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    try:
        crds = load_crds(argv[1])
    except (OSError, yaml.YAMLError, KeyError) as e:
        sys.stderr.write('spo_validate: %s\n' % e)
        return 2
    if not crds:
        sys.stderr.write('spo_validate: no CRD in %s\n' % argv[1])
        return 2
    bad = 0
    for path in argv[2:]:
        with open(path) as f:
            docs = [d for d in yaml.safe_load_all(f) if d is not None]
        objects = [d for d in docs if 'kind' in d]
        if not objects:
            print('FAIL %s: no object' % path)
            bad += 1
        for d in docs:
            if 'kind' in d:
                crdfiles, errs = check_object(d, crds)
                what = '%s %s %s (%s)' % (d.get('kind'), d.get('apiVersion'),
                                          (d.get('metadata') or {}).get('name'), crdfiles)
            else:
                errs = check_snippet(d, objects)
                what = 'securityContext'
            if errs:
                bad += 1
                print('FAIL %s: %s' % (path, what))
                for e in errs:
                    print('    ' + e)
            else:
                print('ok %s: %s' % (path, what))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
