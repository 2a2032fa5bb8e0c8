package dashboards

//go:generate go run ./gendashboards .
