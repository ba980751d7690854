package network

import (
	"fmt"
	"path"
	"strings"

	"github.com/prodready/prodready/checks"

	"github.com/prodready/prodready/checks/manifest"
)

var imageTagMutable = &checks.Rule{
	ID:       "image-tag-mutable",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/concepts/containers/images/#updating-images",
	Why:      "an image with no tag or `:latest` changes under the same name: rollouts and rollbacks are not reproducible and nodes run different code",
	Help:     "Images pinned by digest, placeholders (`${TAG}`, `PROJECT_ID`) and images whose tag a kustomization that builds them sets in `images:` do not fire (another application's file with the same image name still does); the tag an `images:` entry sets is checked as a written one is (`newTag: latest` fires at that line).",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		if checks.IsKustomization(obj) {
			return kustomizeImageTags(obj)
		}
		var out []checks.Finding
		unpinnedImages(ctx, obj, func(c manifest.Container, ref imageRef) {
			if ref.Tag == "" && !strings.Contains(ref.Name, "/") && (inKustomizeTree(ctx, obj) || !dockerOfficialImages[ref.Name]) {
				return // a bare build-time name (frontend) that kustomize, skaffold or a script replaces
			}
			var msg string
			switch ref.Tag {
			case "":
				msg = fmt.Sprintf("container %q uses image %q with no tag, which means :latest: pin a version tag (or a digest)", c.Name, c.Image)
			case "latest":
				msg = fmt.Sprintf("container %q uses %q: :latest changes under the same name; pin a version tag (or a digest)", c.Name, c.Image)
			default:
				return
			}
			out = append(out, checks.At(obj, c.Path.Child("image"), msg))
		})
		return out
	},
}

// kustomizeImageTags checks the tags a kustomization's images: entries set,
// as image-tag-mutable checks a written tag: the written image they
// replace is not reported (its tag is not the one applied), so a newTag
// of latest is reported here.
func kustomizeImageTags(k *manifest.Object) []checks.Finding {
	imgs := k.Node("images")
	if imgs == nil {
		return nil
	}
	var out []checks.Finding
	for i, item := range imgs.Content {
		_, name := manifest.MapEntry(item, "name")
		_, tag := manifest.MapEntry(item, "newTag")
		_, digest := manifest.MapEntry(item, "digest")
		if name == nil || tag == nil || digest != nil || tag.Value != "latest" {
			continue
		}
		image := name.Value
		if _, nn := manifest.MapEntry(item, "newName"); nn != nil && nn.Value != "" {
			image = nn.Value
		}
		out = append(out, checks.At(k, manifest.Path{"images", manifest.Index(i), "newTag"}, fmt.Sprintf("the kustomization sets image %q to %q: :latest changes under the same name; pin a version tag (or a digest)", name.Value, image+":latest")))
	}
	return out
}

var imageNotPinned = &checks.Rule{
	ID:       "image-not-pinned",
	Section:  section,
	Severity: checks.Info,
	OptIn:    true,
	Ref:      "https://kubernetes.io/docs/concepts/containers/images/#image-names",
	Why:      "an image not pinned by digest may change under the same tag (tags can be moved)",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		var out []checks.Finding
		unpinnedImages(ctx, obj, func(c manifest.Container, ref imageRef) {
			out = append(out, checks.At(obj, c.Path.Child("image"), fmt.Sprintf("container %q uses %q, not pinned by digest: append its digest, `@sha256:…` (the tag may stay for readers)", c.Name, c.Image)))
		})
		return out
	},
}

// inKustomizeTree reports whether obj sits in a kustomize tree: a
// kustomization in its folder or above, or a base/, bases/ or components/
// folder on its path.
func inKustomizeTree(ctx *checks.Context, obj *manifest.Object) bool {
	for _, seg := range strings.Split(path.Dir(obj.File.Path), "/") {
		if seg == "base" || seg == "bases" || seg == "components" {
			return true
		}
	}
	for _, k := range ctx.Kustomizations() {
		if under(obj.File.Path, path.Dir(k.File.Path)) {
			return true
		}
	}
	return false
}

// dockerOfficialImages are Docker Hub's official images (docker.io/library):
// a bare name among them is a real image, any other bare name is a
// build-time placeholder.
var dockerOfficialImages = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Fields(`adminer aerospike almalinux alpine amazoncorretto amazonlinux arangodb archlinux
		backdrop bash bonita buildpack-deps busybox caddy cassandra chronograf cirros clearlinux clojure composer
		consul couchbase couchdb crate dart debian docker drupal eclipse-mosquitto eclipse-temurin eggdrop
		elasticsearch elixir emqx erlang fedora flink fluentd friendica gazebo gcc geonetwork ghost golang gradle
		groovy haproxy haskell haxe hello-world hitch httpd hylang ibm-semeru-runtimes ibmjava influxdb irssi jetty
		jobber joomla jruby julia kapacitor kibana kong krakend lightstreamer liquibase logstash mageia mariadb
		matomo maven mediawiki memcached mongo mongo-express monica mono mysql nats neo4j neurodebian nextcloud
		nginx node notary odoo open-liberty openjdk oraclelinux orientdb percona perl photon php php-zendserver
		phpmyadmin plone postfixadmin postgres pypy python r-base rabbitmq rakudo-star redis redmine registry
		rethinkdb rocket.chat rockylinux ruby rust sapmachine satosa silverpeas solr sonarqube spiped storm
		swift teamspeak telegraf tomcat tomee traefik ubuntu unit varnish vault websphere-liberty wordpress
		xwiki yourls znc zookeeper centos express-gateway jenkins nuxeo piwik sentry swarm kaazing-gateway
		opensuse known rapidoid sourcemage java iojs django rails celery thrift ros`) {
		m[n] = true
	}
	return m
}()
