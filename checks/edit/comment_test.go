package edit

import "testing"

// TestApplyKeepsLineComments checks that an edit keeps the end-of-line
// comment of the line it rewrites: a Set of a scalar, a block value set in
// place of a commented scalar, a flow or null value rewritten, on list item
// lines, with "#" and quotes inside the value or the comment, and with
// CRLF line endings. A comment on a line inside a replaced block, or on a
// deleted entry, goes with it.
func TestApplyKeepsLineComments(t *testing.T) {
	for _, tc := range commentCases {
		t.Run(tc.name, func(t *testing.T) { checkApply(t, tc) })
	}
}

var commentCases = []applyCase{
	{
		name: "set a scalar",
		src:  "spec:\n  replicas: 1 # keep\n  x: y\n",
		ops:  []Op{set("spec.replicas", "3")},
		want: "spec:\n  replicas: 3 # keep\n  x: y\n",
		data: "{spec: {replicas: 3, x: y}}",
	},
	{
		name: "one space stays one space when the value gets shorter",
		src:  "replicas: 10 # keep\n",
		ops:  []Op{set("replicas", "9")},
		want: "replicas: 9 # keep\n",
	},
	{
		name: "an aligned comment keeps its column while the value fits",
		src:  "cpu: 100m    # a\nmemory: 1Gi  # b\n",
		ops:  []Op{set("cpu", "1")},
		want: "cpu: 1       # a\nmemory: 1Gi  # b\n",
	},
	{
		name: "an aligned comment after a value too long for its column",
		src:  "cpu: 100m    # a\nmemory: 1Gi  # b\n",
		ops:  []Op{set("memory", "1000000Mi")},
		want: "cpu: 100m    # a\nmemory: 1000000Mi # b\n",
	},
	{
		name: "a tab before the comment becomes a space",
		src:  "a: 1\t# x\nb: 2\n",
		ops:  []Op{set("a", "5")},
		want: "a: 5 # x\nb: 2\n",
	},
	{
		name: "comment without a space after # and trailing blanks",
		src:  "a: 1 #keep   \nb: 1 # x \n",
		ops:  []Op{set("a", "5"), set("b", "6")},
		want: "a: 5 #keep\nb: 6 # x\n",
	},
	{
		name: "the op's comment replaces the old one",
		src:  "spec:\n  replicas: 1 # old\n",
		ops:  []Op{{Action: Set, Path: []string{"spec", "replicas"}, Value: "2", Comment: "at least two"}},
		want: "spec:\n  replicas: 2 # at least two\n",
	},
	{
		name: "value and comment holding # and quotes",
		src:  "image: \"nginx#1\" # pin it, see \"#42\" and 'x'\nb: 'it''s # no' # yes\nc: d#e # f\n",
		ops:  []Op{set("image", "nginx:1.27"), set("b", "x"), set("c", `"#"`)},
		want: "image: nginx:1.27 # pin it, see \"#42\" and 'x'\nb: x # yes\nc: \"#\" # f\n",
		data: "{image: 'nginx:1.27', b: x, c: '#'}",
	},
	{
		name: "quoted key",
		src:  "m:\n  \"a b\": x # old\n  'c': y # why\n",
		ops:  []Op{{Action: Set, Path: []string{"m", "a b"}, Value: "z"}, {Action: Set, Path: []string{"m", "c"}, Value: "w"}},
		want: "m:\n  \"a b\": z # old\n  'c': w # why\n",
	},
	{
		name: "non-ascii key",
		src:  "名前: x    # c\nb: 1\n",
		ops:  []Op{set("名前", "y")},
		want: "名前: y    # c\nb: 1\n",
	},
	{
		name: "crlf",
		src:  "a: 1 # x\r\nd: x # old\r\nz: 1\r\n",
		ops:  []Op{set("a", "5"), set("d", "k: v")},
		want: "a: 5 # x\r\nd: # old\r\n  k: v\r\nz: 1\r\n",
	},
	{
		name: "crlf without final newline",
		src:  "a: 1\r\nb: 2 # x",
		ops:  []Op{set("b", "3")},
		want: "a: 1\r\nb: 3 # x",
	},
	{
		name: "a mapping set in place of a scalar keeps it on the key line",
		src:  "d: x # old\ne: 1\n",
		ops:  []Op{set("d", "k: v")},
		want: "d: # old\n  k: v\ne: 1\n",
		data: "{d: {k: v}, e: 1}",
	},
	{
		name: "a sequence set in place of a scalar keeps it on the key line",
		src:  "d: x # old\ne: 1\n",
		ops:  []Op{set("d", "- a\n- b\n")},
		want: "d: # old\n- a\n- b\ne: 1\n",
		data: "{d: [a, b], e: 1}",
	},
	{
		name: "a block scalar set in place of a scalar keeps it on its header",
		src:  "script: x # old\ne: 1\n",
		ops:  []Op{set("script", "|\n  echo hi\n  exit 0\n")},
		want: "script: | # old\n  echo hi\n  exit 0\ne: 1\n",
		data: "{script: \"echo hi\\nexit 0\\n\", e: 1}",
	},
	{
		name: "a scalar set in place of a block scalar keeps the header's comment",
		src:  "script: | # run\n  echo hi\nz: 1\n",
		ops:  []Op{set("script", "echo bye")},
		want: "script: echo bye # run\nz: 1\n",
	},
	{
		name: "a multi-line quoted value's comment",
		src:  "a: \"x\n  y\" # c\nz: 1\n",
		ops:  []Op{set("a", "b")},
		want: "a: b # c\nz: 1\n",
	},
	{
		name: "a sequence item",
		src:  "l:\n- a # old a\n- b\n",
		ops:  []Op{set("l.0", "z")},
		want: "l:\n- z # old a\n- b\n",
	},
	{
		name: "a mapping set in place of a commented item",
		src:  "l:\n  - a # one\n  - b\n",
		ops:  []Op{set("l.0", "name: x\nport: 1")},
		want: "l:\n  - name: x # one\n    port: 1\n  - b\n",
	},
	{
		name: "a key on a list item line",
		src:  "containers:\n- name: web # main\n  image: nginx # latest\n",
		ops:  []Op{set("containers.0.name", "api"), set("containers.0.image", "nginx:1.27")},
		want: "containers:\n- name: api # main\n  image: nginx:1.27 # latest\n",
	},
	{
		name: "a key after a list item line with a comment, and one inserted",
		src:  "containers:\n- name: web # main\n  image: nginx\n",
		ops:  []Op{set("containers.0.image", "nginx:1.27"), set("containers.0.securityContext.privileged", "false")},
		want: "containers:\n- name: web # main\n  image: nginx:1.27\n  securityContext:\n    privileged: false\n",
	},
	{
		name: "a nested sequence sharing the item line",
		src:  "l:\n- - a # c\n  - b\n",
		ops:  []Op{set("l.0.0", "z")},
		want: "l:\n- - z # c\n  - b\n",
	},
	{
		name: "a flow mapping",
		src:  "labels: {app: web} # x\nz: 1\n",
		ops:  []Op{set("labels.team", "a")},
		want: "labels: {app: web, team: a} # x\nz: 1\n",
	},
	{
		name: "a flow mapping edited inside",
		src:  "limits: {cpu: 1, memory: \"1Gi\"}   # c\n",
		ops:  []Op{set("limits.cpu", "2"), set("limits.memory", "512Mi")},
		want: "limits: {cpu: 2, memory: 512Mi}   # c\n",
	},
	{
		name: "a flow sequence appended to",
		src:  "drop: [NET_RAW] # x\n",
		ops:  []Op{appendOp("drop", "ALL")},
		want: "drop: [NET_RAW, ALL] # x\n",
	},
	{
		name: "an empty flow mapping becoming a block",
		src:  "resources: {} # none yet\nz: 1\n",
		ops:  []Op{set("resources.limits.cpu", "1")},
		want: "resources: # none yet\n  limits:\n    cpu: 1\nz: 1\n",
	},
	{
		name: "an empty flow sequence becoming a block",
		src:  "spec:\n  drop: [] # none\n",
		ops:  []Op{appendOp("spec.drop", "ALL")},
		want: "spec:\n  drop: # none\n  - ALL\n",
	},
	{
		name: "a null value becoming a block",
		src:  "spec:\n  resources: # TODO\n  x: 1\n",
		ops:  []Op{set("spec.resources.limits.memory", "128Mi")},
		want: "spec:\n  resources: # TODO\n    limits:\n      memory: 128Mi\n  x: 1\n",
	},
	{
		name: "a null value becoming a block with the op's comment on the leaf",
		src:  "spec:\n  resources: # TODO\n",
		ops:  []Op{{Action: Set, Path: split("spec.resources.limits.memory"), Value: "128Mi", Comment: "starting point"}},
		want: "spec:\n  resources: # TODO\n    limits:\n      memory: 128Mi # starting point\n",
	},
	{
		name: "an alias",
		src:  "base: &b 1\nuse: *b # alias\n",
		ops:  []Op{set("use", "2")},
		want: "base: &b 1\nuse: 2 # alias\n",
	},
	{
		name: "a root flow mapping",
		src:  "{a: 1} # c\n",
		ops:  []Op{set("b", "2")},
		want: "{a: 1, b: 2} # c\n",
	},
	{
		name: "append after an item ending with a comment",
		src:  "args:\n- a\n- b # last\nz: 1\n",
		ops:  []Op{appendOp("args", "c")},
		want: "args:\n- a\n- b # last\n- c\nz: 1\n",
	},
	{
		name: "append after a mapping item whose last line has a comment",
		src:  "env:\n- name: A\n  value: \"1\" # one\nz: 1\n",
		ops:  []Op{appendOp("env", "name: B")},
		want: "env:\n- name: A\n  value: \"1\" # one\n- name: B\nz: 1\n",
	},
	{
		name: "append after an item followed by commented-out lines",
		src:  "args:\n- a # first\n  # - b\nz: 1\n",
		ops:  []Op{appendOp("args", "c")},
		want: "args:\n- a # first\n  # - b\n- c\nz: 1\n",
	},
	{
		name: "insert into a mapping ending with a commented line",
		src:  "spec:\n  a: 1 # one\n  # b: 2\nz: 1\n",
		ops:  []Op{set("spec.c", "3")},
		want: "spec:\n  a: 1 # one\n  c: 3\n  # b: 2\nz: 1\n",
	},
	{
		name: "the comment of a block value's key line stays, those inside go",
		src:  "resources: # r\n  limits: # l\n    cpu: 1 # c\nz: 1\n",
		ops:  []Op{set("resources", "{}")},
		want: "resources: {} # r\nz: 1\n",
	},
	{
		name: "a deleted key's comment goes",
		src:  "l:\n- name: a # n\n  image: x # i\n- name: b # b\n",
		ops:  []Op{del("l.0.name"), del("l.1.name")},
		want: "l:\n- image: x # i\n- {}\n",
	},
	{
		name: "a document's only key deleted with its comment",
		src:  "a: 1 # c\n",
		ops:  []Op{del("a")},
		want: "{}\n",
	},
	{
		name: "a new item in place of a mapping item drops its first key's comment",
		src:  "l:\n- name: web # main\n  image: x\n",
		ops:  []Op{set("l.0", "name: api")},
		want: "l:\n- name: api\n",
	},
}
