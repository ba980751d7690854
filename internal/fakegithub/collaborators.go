package fakegithub

import (
	"net/http"
	"strings"
)

// RouteCollaboratorPermission answers a user's permission on a repository.
const RouteCollaboratorPermission = "GET /repos/{owner}/{repo}/collaborators/{username}/permission"

// SetCollaborator gives login role on the repository, as GET
// /repos/{owner}/{repo}/collaborators/{username}/permission answers it:
// role_name is the role ("admin", "maintain", "write", "triage", "read" or
// a custom role's name) and permission its legacy base role ("admin",
// "write", "read" or "none"; maintain is write, triage read; a custom role
// is read). Role "" makes login a user who is no collaborator: GitHub
// answers 200 with read, the access anyone has to a public repository. A
// login never set is no user at all: 404.
func (s *Server) SetCollaborator(owner, name, login, role string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.collaborators == nil {
		s.collaborators = map[string]string{}
	}
	s.collaborators[strings.ToLower(owner+"/"+name+"/"+login)] = role
}

// legacyPermission is the base role GitHub's permission field gives role.
func legacyPermission(role string) string {
	switch role {
	case "admin":
		return "admin"
	case "maintain", "write":
		return "write"
	case "none":
		return "none"
	default:
		return "read"
	}
}

// collaboratorPermission answers RouteCollaboratorPermission.
func (s *Server) collaboratorPermission(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	login := r.PathValue("username")
	role, ok := s.collaborators[strings.ToLower(r.PathValue("owner")+"/"+r.PathValue("repo")+"/"+login)]
	if !ok {
		notFound(w)
		return
	}
	if role == "" {
		role = "read"
	}
	perm := legacyPermission(role)
	writeJSON(w, http.StatusOK, map[string]any{"permission": perm, "role_name": role,
		"user": map[string]any{"login": login, "type": "User", "role_name": role, "permissions": map[string]bool{
			"admin": perm == "admin", "maintain": role == "maintain" || perm == "admin", "push": perm == "admin" || perm == "write",
			"triage": perm != "none", "pull": perm != "none"}}})
}
