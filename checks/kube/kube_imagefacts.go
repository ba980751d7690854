package kube

import (
	"path"
	"slices"
	"strings"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/manifest"

	corev1 "k8s.io/api/core/v1"
)

// ImageFacts is what is known of an image family: the user it runs as,
// where it writes, what it needs of the kernel and of memory, and whether
// two replicas of it work. Every rule whose fix touches a container asks
// Facts, so the rules agree about one container: when one knows the image
// needs something, no other rule's fix takes it away.
type ImageFacts struct {
	// Family names the image in messages ("postgres", "a JVM").
	Family string
	// Source is where the facts come from: the image's Dockerfile or docs.
	Source string
	// User is the UID the image runs as, or the one its entrypoint
	// switches to once it has set up its directories (0: not known).
	User int64
	// AlpineUser is User for the image's alpine variants (postgres: 70).
	AlpineUser int64
	// RootOnly says why the image must start as root ("" when it need
	// not): a non-root UID breaks it.
	RootOnly string
	// Writes are the directories outside /tmp it writes while it runs;
	// WritesUnknown marks a family known to write outside /tmp at paths
	// the table does not list.
	Writes        []string
	WritesUnknown bool
	// Caps are the capabilities it needs as the user it starts as: a drop
	// of ALL must add them back.
	Caps []string
	// Memory is the smallest memory limit it starts and works with ("":
	// no more than a small app's).
	Memory string
	// Datastore marks a single-instance datastore: more replicas are
	// separate databases behind one Service, not copies of one.
	Datastore bool
	// Single says why two replicas of it break ("" when they do not),
	// unless an argument starts with ClusterFlag (Alertmanager's
	// --cluster.peer makes its replicas one cluster).
	Single      string
	ClusterFlag string
	// Sticky says it needs sticky sessions to run more than one replica
	// (socket.io's long-polling): a Service with sessionAffinity: ClientIP
	// gives them.
	Sticky string

	names []string // image base names (see Facts), or repository paths with a "/"
	env   []string // variables only it reads, which recognise it when its image name does not; a trailing "_" is a prefix
	// envPort are variables it shares with its clients (POSTGRES_PASSWORD
	// sits in one ConfigMap with the client's JDBC URL): they recognise it
	// only in a container that declares port as well.
	envPort []string
	port    int32
	// ByEnv is true when Facts recognised it by its variables, not its
	// image name: another build of the same server, whose user is its
	// own (User is then the stock image's, for messages only).
	ByEnv bool
}

// imageFacts is the table. Each row says where its facts come from.
var imageFacts = []ImageFacts{
	{Family: "nginx", names: []string{"nginx", "nginx-slim"},
		Source:   "https://github.com/nginxinc/docker-nginx (the master process starts as root, binds port 80, writes /var/cache/nginx and /var/run/nginx.pid, then switches its workers to the nginx user); registry.k8s.io/nginx-slim is the same server",
		RootOnly: "the stock nginx image starts as root (it binds port 80 and writes /var/cache/nginx and its pid file), so setting a non-root user breaks it: run nginxinc/nginx-unprivileged (UID 101, port 8080) or an image built for a non-root user, then set runAsNonRoot: true",
		Writes:   []string{"/var/cache/nginx", "/var/run"}, Caps: []string{"CHOWN", "SETUID", "SETGID", "NET_BIND_SERVICE"}},
	{Family: "httpd", names: []string{"httpd"},
		Source:   "https://github.com/docker-library/httpd (binds port 80 as root, then its children run as daemon; logs and pid under /usr/local/apache2/logs)",
		RootOnly: "the stock httpd image starts as root (it binds port 80, then drops to daemon), so setting a non-root user breaks it: listen on a port above 1024 in an image built for a non-root user, then set runAsNonRoot: true",
		Writes:   []string{"/usr/local/apache2/logs"}, Caps: []string{"CHOWN", "SETUID", "SETGID", "NET_BIND_SERVICE"}},
	{Family: "kong", names: []string{"kong", "kong-gateway"},
		Source:   "https://docs.konghq.com/gateway/latest/production/deployment-topologies/ and https://github.com/Kong/docker-kong (KONG_PREFIX defaults to /usr/local/kong, where it writes its nginx config, pid and sockets)",
		RootOnly: "the kong image needs its prefix directory writable and ports below 1024 only as root: set KONG_PREFIX to a mounted emptyDir and listen above 1024 before setting runAsNonRoot: true with the kong user (UID 1000)",
		Writes:   []string{"/usr/local/kong"}},
	{Family: "postgres", names: []string{"postgres", "postgresql"}, env: []string{"PGDATA", "POSTGRES_INITDB_ARGS", "POSTGRES_HOST_AUTH_METHOD"}, envPort: []string{"POSTGRES_"}, port: 5432,
		Source: "https://github.com/docker-library/postgres (useradd -u 999 postgres; the alpine variants use UID 70; PGDATA /var/lib/postgresql/data, sockets in /var/run/postgresql)",
		User:   999, AlpineUser: 70, Writes: []string{"/var/lib/postgresql/data", "/var/run/postgresql"}, Datastore: true},
	{Family: "mysql", names: []string{"mysql"}, env: []string{"MYSQL_ALLOW_EMPTY_PASSWORD", "MYSQL_RANDOM_ROOT_PASSWORD"}, envPort: []string{"MYSQL_"}, port: 3306,
		Source: "https://github.com/docker-library/mysql (the entrypoint takes /var/lib/mysql as root, then runs mysqld as UID 999)",
		User:   999, Writes: []string{"/var/lib/mysql", "/var/run/mysqld"}, Datastore: true},
	{Family: "mariadb", names: []string{"mariadb"}, env: []string{"MARIADB_ROOT_PASSWORD"},
		Source: "https://github.com/MariaDB/mariadb-docker (UID 999, data in /var/lib/mysql)",
		User:   999, Writes: []string{"/var/lib/mysql", "/run/mysqld"}, Datastore: true},
	{Family: "mongo", names: []string{"mongo", "mongodb"}, env: []string{"MONGO_INITDB_"}, port: 27017,
		Source: "https://github.com/docker-library/mongo (UID 999, data in /data/db); https://www.mongodb.com/docs/manual/core/wiredtiger/ (the cache takes 50% of memory less 1 GB, at least 256 MB, on top of the server's own)",
		User:   999, Writes: []string{"/data/db", "/data/configdb"}, Memory: "1Gi", Datastore: true},
	{Family: "redis", names: []string{"redis"},
		Source: "https://github.com/docker-library/redis (the entrypoint takes /data as root, then runs redis-server as UID 999)",
		User:   999, Writes: []string{"/data"}, Datastore: true},
	{Family: "rabbitmq", names: []string{"rabbitmq"}, env: []string{"RABBITMQ_DEFAULT_USER", "RABBITMQ_ERLANG_COOKIE"},
		Source: "https://github.com/docker-library/rabbitmq (UID 999, data in /var/lib/rabbitmq)",
		User:   999, Writes: []string{"/var/lib/rabbitmq"}, Datastore: true},
	{Family: "elasticsearch", names: []string{"elasticsearch"}, env: []string{"ES_JAVA_OPTS"},
		Source: "https://www.elastic.co/guide/en/elasticsearch/reference/current/docker.html (runs as elasticsearch, UID 1000; data and logs under /usr/share/elasticsearch; its heap defaults to 1 GB in the 6.x and 7.x images, and must be at most half the container's memory)",
		User:   1000, Writes: []string{"/usr/share/elasticsearch/data", "/usr/share/elasticsearch/logs"}, Memory: "2Gi", Datastore: true},
	{Family: "influxdb", names: []string{"influxdb"},
		Source: "https://github.com/influxdata/influxdata-docker (data in /var/lib/influxdb; a single server: clustering is InfluxDB Enterprise's)",
		Writes: []string{"/var/lib/influxdb"}, Datastore: true},
	{Family: "heapster-influxdb", names: []string{"heapster-influxdb"},
		Source: "https://github.com/kubernetes-retired/heapster/tree/master/influxdb (Dockerfile: no USER, so influxd runs as root; its config puts all of its storage under /data, the image's VOLUME)",
		Writes: []string{"/data"}, Datastore: true},
	{Family: "prometheus", names: []string{"prometheus"},
		Source: "https://github.com/prometheus/prometheus/blob/main/Dockerfile (USER nobody, UID 65534; the TSDB in /prometheus, owned by nobody)",
		User:   65534, Writes: []string{"/prometheus"}},
	{Family: "alertmanager", names: []string{"alertmanager"},
		Source: "https://github.com/prometheus/alertmanager (Dockerfile: USER nobody, data in /alertmanager; README, High Availability: replicas share silences and deduplicate notifications only as a cluster, through --cluster.peer)",
		User:   65534, Writes: []string{"/alertmanager"},
		Single:      "Alertmanager replicas that are not one cluster (no --cluster.peer) each send every notification and keep their own silences",
		ClusterFlag: "--cluster.peer"},
	{Family: "node-exporter", names: []string{"node-exporter"},
		Source: "https://github.com/prometheus/node_exporter/blob/master/Dockerfile (USER nobody, UID 65534)",
		User:   65534},
	{Family: "emojivoto voting", names: []string{"emojivoto-voting-svc"},
		Source: "https://github.com/BuoyantIO/emojivoto (emojivoto-voting-svc keeps the poll in an in-memory map)",
		Single: "the voting service keeps its vote counts in memory, so each replica would count its own votes and answer with its own totals"},
	{Family: "example-voting-app result", names: []string{"examplevotingapp_result"},
		Source: "https://github.com/dockersamples/example-voting-app (result/server.js pushes scores over socket.io); https://socket.io/docs/v4/using-multiple-nodes/ (more than one server needs sticky sessions)",
		Sticky: "it serves socket.io, whose long-polling clients fail when their requests reach different replicas"},
	{Family: "NGINX App Protect DoS arbitrator", names: []string{"app_protect_dos_arb"},
		Source: "https://docs.nginx.com/nginx-app-protect-dos/deployment-guide/learn-about-deployment/ (the arbitrator is one per namespace: the protected instances share its state)",
		Single: "the App Protect DoS arbitrator must be the only one in its namespace: the NGINX instances it serves share its one state"},
	{Family: "a JVM", names: []string{"zipkin", "openzipkin", "zipkin-slim", "wavefronthq/proxy", "tomcat", "jenkins", "keycloak", "kafka", "zookeeper", "cassandra", "solr", "sonarqube", "logstash", "nexus3"},
		env:    []string{"JAVA_OPTS", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JVM_OPTS", "JAVA_OPTIONS"},
		Source: "https://docs.oracle.com/en/java/javase/21/gctuning/ergonomics.html (the heap defaults to a quarter of the container's memory; the JVM's own code cache, metaspace and threads come on top)",
		Memory: "1Gi"},
}

// imageWriters are image families known to write outside /tmp (caches,
// pid files, data directories) at paths the table does not list.
var imageWriters = []string{"nginx", "mysql", "postgres", "postgresql", "redis", "mariadb", "mongo", "mongodb",
	"rabbitmq", "elasticsearch", "opensearch", "httpd", "apache", "wordpress", "jenkins", "tomcat", "kafka",
	"zookeeper", "cassandra", "php", "drupal", "ghost", "nextcloud", "sonarqube", "gitlab", "influxdb", "clickhouse",
	"couchdb", "solr", "keycloak", "grafana", "openresty", "haproxy", "varnish", "squid", "kong", "prometheus", "alertmanager"}

// datastoreImages are images of single-instance datastores: a Deployment
// running one is a deliberate singleton (three replicas are three separate
// databases behind one Service).
var datastoreImages = []string{"redis", "postgres", "postgresql", "pgvector", "mysql", "mariadb", "mongo", "mongodb", "etcd", "zookeeper",
	"rabbitmq", "elasticsearch", "cassandra", "influxdb", "neo4j", "couchdb", "minio", "nfs-server", "volume-nfs", "registry",
	"bind", "bind9", "named", "memcached", "valkey", "keydb", "clickhouse", "timescaledb", "questdb", "sqlite"}

// companions are the last words of images that work beside an image
// family without being one: redis-exporter, mysqld-exporter,
// mongo-express, postgres-operator, redis-commander.
var companions = []string{"exporter", "operator", "proxy", "express", "commander", "ui", "admin", "backup", "client", "cli", "agent", "sidecar"}

// archSuffixes are the architecture words some images end their name
// with (heapster-influxdb-amd64): the family is the name without them.
var archSuffixes = []string{"-amd64", "-arm64", "-arm", "-ppc64le", "-s390x", "-386"}

// FamilyBase returns ImageBase without an architecture suffix:
// "heapster-influxdb" for "gcr.io/google_containers/heapster-influxdb-amd64:v1.1.1".
func FamilyBase(image string) string {
	base := ImageBase(image)
	for _, s := range archSuffixes {
		if b, ok := strings.CutSuffix(base, s); ok && b != "" {
			return b
		}
	}
	return base
}

// variantOf reports whether base is family name or a variant of it: the
// name itself, or with a word before or after it (redis-stack,
// heapster-influxdb, bitnami's postgresql-repmgr), but not a companion
// (redis-exporter, mongo-express).
func variantOf(base, name string) bool {
	if base == name {
		return true
	}
	words := strings.Split(base, "-")
	if slices.Contains(companions, words[len(words)-1]) {
		return false
	}
	return strings.HasPrefix(base, name+"-") || strings.HasSuffix(base, "-"+name)
}

// repository returns an image's repository path without registry, tag or
// digest, lower case: "wavefronthq/proxy" for "wavefronthq/proxy:latest".
func repository(image string) string {
	image, _, _ = strings.Cut(strings.ToLower(image), "@")
	if i := strings.LastIndex(image, ":"); i > strings.LastIndex(image, "/") {
		image = image[:i]
	}
	if first, rest, ok := strings.Cut(image, "/"); ok && (strings.ContainsAny(first, ".:") || first == "localhost") {
		image = rest
	}
	return image
}

// Facts returns what the table knows of container c of obj: the row of
// its image's family (by its base name, an architecture suffix left out,
// or its repository path), else the row one of its environment variables recognises
// (PGDATA or POSTGRES_* make a postgres under another image name,
// JAVA_OPTS a JVM), its own or those of the ConfigMaps and Secrets its
// envFrom names in the run (then ByEnv is set: the image is another
// build, whose user is its own). A postgres alpine variant runs as AlpineUser.
func Facts(ctx *checks.Context, obj *manifest.Object, c manifest.Container) (ImageFacts, bool) {
	f, ok := factsByImage(c.Image)
	if !ok {
		if f, ok = factsByEnv(envNames(ctx, obj, c), c); ok {
			// Another image that runs the same server: its paths and needs
			// are the server's, its user is its own build's.
			f.ByEnv = true
		}
	}
	if ok && !f.ByEnv && f.AlpineUser != 0 && strings.Contains(imageTag(c.Image), "alpine") {
		f.User = f.AlpineUser
	}
	return f, ok
}

func factsByImage(image string) (ImageFacts, bool) {
	base, repo := FamilyBase(image), repository(image)
	for _, f := range imageFacts {
		for _, n := range f.names {
			if strings.Contains(n, "/") {
				if repo == n || strings.HasSuffix(repo, "/"+n) {
					return f, true
				}
			} else if base == n {
				return f, true
			}
		}
	}
	return ImageFacts{}, false
}

func factsByEnv(names []string, c manifest.Container) (ImageFacts, bool) {
	for _, f := range imageFacts {
		if envMatch(f.env, names) || (envMatch(f.envPort, names) && declaresPort(c, f.port)) {
			return f, true
		}
	}
	return ImageFacts{}, false
}

// envMatch reports whether one of names is one of wants (a want ending in
// "_" is a prefix).
func envMatch(wants, names []string) bool {
	for _, want := range wants {
		for _, n := range names {
			if n == want || (strings.HasSuffix(want, "_") && strings.HasPrefix(n, want)) {
				return true
			}
		}
	}
	return false
}

// declaresPort reports whether c declares container port p.
func declaresPort(c manifest.Container, p int32) bool {
	for _, cp := range c.Ports {
		if p != 0 && cp.ContainerPort == p {
			return true
		}
	}
	return false
}

// envNames returns the names of c's environment variables: its own, and
// the keys of the ConfigMaps and Secrets of the run its envFrom names (in
// obj's namespace), with their prefix.
func envNames(ctx *checks.Context, obj *manifest.Object, c manifest.Container) []string {
	var out []string
	for _, e := range c.Env {
		out = append(out, e.Name)
	}
	if ctx == nil {
		return out
	}
	for _, src := range c.EnvFrom {
		kind, name := "", ""
		switch {
		case src.ConfigMapRef != nil:
			kind, name = "ConfigMap", src.ConfigMapRef.Name
		case src.SecretRef != nil:
			kind, name = "Secret", src.SecretRef.Name
		default:
			continue
		}
		for _, o := range ctx.ByKindName(kind, name) {
			if !ctx.SameNamespace(o, obj) {
				continue
			}
			switch t := o.Typed().(type) {
			case *corev1.ConfigMap:
				for k := range t.Data {
					out = append(out, src.Prefix+k)
				}
			case *corev1.Secret:
				for k := range t.Data {
					out = append(out, src.Prefix+k)
				}
				for k := range t.StringData {
					out = append(out, src.Prefix+k)
				}
			}
		}
	}
	return out
}

// imageTag returns an image's tag, lower case ("" when it has none).
func imageTag(image string) string {
	image, _, _ = strings.Cut(strings.ToLower(image), "@")
	if i := strings.LastIndex(image, ":"); i > strings.LastIndex(image, "/") {
		return image[i+1:]
	}
	return ""
}

// Writer returns the family of an image known to write outside /tmp, and
// the directories it writes when the table lists them: a read-only root
// filesystem needs a volume at each. "" when none is known.
func Writer(ctx *checks.Context, obj *manifest.Object, c manifest.Container) (family string, dirs []string) {
	if f, ok := Facts(ctx, obj, c); ok && (len(f.Writes) > 0 || f.WritesUnknown) {
		return f.Family, f.Writes
	}
	base := FamilyBase(c.Image)
	for _, n := range imageWriters {
		if variantOf(base, n) {
			return n, nil
		}
	}
	return "", nil
}

// Unmounted returns the directories of dirs that no volume mount of c
// covers (a mount at the directory or above it).
func Unmounted(c manifest.Container, dirs []string) []string {
	var out []string
	for _, d := range dirs {
		covered := false
		for _, m := range c.VolumeMounts {
			mp := path.Clean(m.MountPath)
			covered = covered || (!m.ReadOnly && (d == mp || strings.HasPrefix(d, mp+"/")))
		}
		if !covered {
			out = append(out, d)
		}
	}
	return out
}

// Datastore reports whether container c of obj runs a single-instance
// datastore, and names its image: a datastore row of the table (by name
// or by its variables), an image of datastoreImages or a variant of one
// (redis-stack, heapster-influxdb-amd64), one whose name ends in "-db" or
// "db" (userdb, cart-db), or an app that keeps its data in its own pod
// unless configured otherwise: grafana with no external database
// (GF_DATABASE_TYPE or GF_DATABASE_URL), zipkin with in-memory storage
// (STORAGE_TYPE unset or mem).
func Datastore(ctx *checks.Context, obj *manifest.Object, c manifest.Container) (string, bool) {
	img := FamilyBase(c.Image)
	if f, ok := Facts(ctx, obj, c); ok && f.Datastore {
		if f.ByEnv {
			return img + " (a " + f.Family + " by its environment)", true
		}
		return img, true
	}
	words := strings.Split(img, "-")
	if slices.Contains(companions, words[len(words)-1]) {
		return "", false
	}
	for _, d := range datastoreImages {
		if variantOf(img, d) {
			return img, true
		}
	}
	if strings.HasSuffix(img, "-db") || (len(img) > 2 && strings.HasSuffix(img, "db")) {
		return img, true
	}
	switch img {
	case "grafana", "grafana-oss", "grafana-enterprise", "heapster-grafana":
		if envValue(c, "GF_DATABASE_TYPE") == "" && envValue(c, "GF_DATABASE_URL") == "" {
			return img + " (with no external database: no GF_DATABASE_TYPE or GF_DATABASE_URL)", true
		}
	case "zipkin", "openzipkin", "zipkin-slim":
		if t := envValue(c, "STORAGE_TYPE"); t == "" || t == "mem" {
			return img + " (with in-memory storage)", true
		}
	}
	return "", false
}

// envValue returns the literal value of container c's environment
// variable name, "" when unset or set from a source.
func envValue(c manifest.Container, name string) string {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value
		}
	}
	return ""
}

// SingleReason says why the pods of workload obj (pod template pt) cannot
// run as more than one replica, "" when nothing says so: a datastore (see
// Datastore), a row of the table whose app keeps its state in memory or
// must be alone (unless it is told its peers), one that needs sticky
// sessions no Service of obj gives, a Deployment with strategy: Recreate
// (its authors want never two pods at once), or an operator that runs
// without leader election (two would reconcile the same objects).
func SingleReason(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) string {
	for _, c := range pt.Containers() {
		if c.Init {
			continue
		}
		if img, ok := Datastore(ctx, obj, c); ok {
			return "its image " + quote(img) + " is a single-instance datastore, so more replicas would be separate databases behind one Service, not copies of one"
		}
		f, _ := Facts(ctx, obj, c)
		if f.Single != "" && !hasArgPrefix(c, f.ClusterFlag) {
			return f.Single
		}
		if f.Sticky != "" && !stickyServices(ctx, obj) {
			return f.Sticky + ", and no Service of it sets sessionAffinity: ClientIP"
		}
	}
	if strategyRecreate(obj) {
		return "its strategy is Recreate, which its authors chose so that two of its pods never run at once"
	}
	if !LeaderElected(obj) {
		for _, c := range pt.Containers() {
			if !c.Init && operatorImage(c.Image) {
				return "its image " + quote(c.Image) + " is an operator and nothing turns on leader election, so two replicas would reconcile the same objects at once"
			}
		}
	}
	return ""
}

func quote(s string) string { return "\"" + s + "\"" }

// hasArgPrefix reports whether one of c's command words or arguments
// starts with prefix ("" never does).
func hasArgPrefix(c manifest.Container, prefix string) bool {
	if prefix == "" {
		return false
	}
	for _, a := range append(append([]string{}, c.Command...), c.Args...) {
		for _, w := range strings.Fields(a) {
			if strings.HasPrefix(w, prefix) {
				return true
			}
		}
	}
	return false
}

// stickyServices reports whether a Service that selects obj's pods sets
// sessionAffinity: ClientIP.
func stickyServices(ctx *checks.Context, obj *manifest.Object) bool {
	if ctx == nil {
		return false
	}
	for _, s := range ServingServices(ctx, obj) {
		if svc, ok := s.Typed().(*corev1.Service); ok && svc.Spec.SessionAffinity == corev1.ServiceAffinityClientIP {
			return true
		}
	}
	return false
}

// strategyRecreate reports whether a Deployment's strategy is Recreate.
func strategyRecreate(obj *manifest.Object) bool {
	v, ok := obj.Scalar("spec", "strategy", "type")
	return ok && v == "Recreate"
}

// operatorImage reports whether an image is an operator's: its name has
// the word "operator" (postgres-operator, prometheus-operator) and is not
// a companion's UI or proxy.
func operatorImage(image string) bool {
	words := strings.Split(FamilyBase(image), "-")
	return slices.Contains(words, "operator") && words[len(words)-1] == "operator"
}

// MemoryFloor returns the smallest memory limit the table knows container c
// of obj works with, and the family that needs it ("" when none is known).
func MemoryFloor(ctx *checks.Context, obj *manifest.Object, c manifest.Container) (qty, family string) {
	if f, ok := Facts(ctx, obj, c); ok && f.Memory != "" {
		return f.Memory, f.Family
	}
	return "", ""
}

// LeaderElected reports whether a workload runs a leader-elected
// singleton: a container arg or command like --leader-elect (not =false).
func LeaderElected(obj *manifest.Object) bool {
	pt := obj.PodTemplate()
	if pt == nil {
		return false
	}
	for _, c := range pt.Containers() {
		for _, e := range c.Env {
			if strings.Contains(strings.ToUpper(e.Name), "LEADER_ELECT") && !strings.EqualFold(e.Value, "false") {
				return true
			}
		}
		for _, a := range append(append([]string{}, c.Command...), c.Args...) {
			for _, word := range strings.Fields(a) {
				w := strings.ToLower(word)
				if strings.Contains(w, "leader-elect") || strings.Contains(w, "leader_elect") || strings.Contains(w, "leaderelect") {
					if !strings.HasSuffix(w, "=false") {
						return true
					}
				}
			}
		}
	}
	return false
}
