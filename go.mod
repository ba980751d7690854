module github.com/prodready/prodready

go 1.26.0
