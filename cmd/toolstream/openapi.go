package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost/openapi"
)

// loadOpenAPI reads the documents of cfg's openapi_tools entries and makes
// their tools (docs/openapi-tools.md). What keeps an entry from loading is
// a *config.Error, each problem at the entry's key in the config file,
// naming the document's own place: what "toolstream check" prints, and
// why a start or a reload is refused.
func loadOpenAPI(ctx context.Context, cfg *config.Config, log *slog.Logger) ([]openapi.Source, error) {
	if len(cfg.OpenAPITools) == 0 {
		return nil, nil
	}
	dir := ""
	if cfg.File != "" {
		dir = filepath.Dir(cfg.File)
	}
	srcs, errs := openapi.Build(ctx, cfg.OpenAPITools, openapi.Options{Dir: dir, ToolTimeout: cfg.Loop.ToolTimeout, Log: log})
	ce := &config.Error{Problems: append(nameClashes(cfg, srcs), unknownOverrides(cfg, srcs)...)}
	if len(errs) == 0 && len(ce.Problems) == 0 {
		return srcs, nil
	}
	for _, err := range errs {
		var ee *openapi.EntryError
		if !errors.As(err, &ee) {
			ce.Problems = append(ce.Problems, config.Problem{File: cfg.File, Message: err.Error()})
			continue
		}
		key := fmt.Sprintf("openapi_tools[%d].%s", ee.Index, ee.Key)
		if ee.Key == "base_url" && cfg.OpenAPITools[ee.Index].BaseURL == "" {
			key = fmt.Sprintf("openapi_tools[%d]", ee.Index)
		}
		var de *openapi.Error
		if !errors.As(err, &de) {
			ce.Problems = append(ce.Problems, cfg.ProblemAt(key, err.Error()))
			continue
		}
		for _, p := range de.Problems {
			msg := de.Location + ": " + p.String()
			if p.Line > 0 {
				msg = de.Location + ":" + p.String()
			}
			ce.Problems = append(ce.Problems, cfg.ProblemAt(key, msg))
		}
	}
	return nil, ce
}

// skippedWarnings are the operations of srcs that are no tools, as
// warnings placed at their entries.
func skippedWarnings(cfg *config.Config, srcs []openapi.Source) []config.Problem {
	var out []config.Problem
	for _, s := range srcs {
		for i, e := range cfg.OpenAPITools {
			if e.Name != s.Name {
				continue
			}
			for _, p := range s.Skipped {
				w := cfg.ProblemAt(fmt.Sprintf("openapi_tools[%d].spec", i), "operation left out: "+s.Location+":"+p.String())
				w.Warning = true
				out = append(out, w)
			}
		}
	}
	return out
}

// openAPITools counts the tools of srcs.
func openAPITools(srcs []openapi.Source) int {
	n := 0
	for _, s := range srcs {
		n += len(s.Tools)
	}
	return n
}

// logSkipped logs the operations of srcs that are no tools, as check
// prints them.
func logSkipped(log *slog.Logger, cfg *config.Config, srcs []openapi.Source) {
	for _, w := range skippedWarnings(cfg, srcs) {
		log.Warn("config warning", "problem", w.String())
	}
}

// nameClashes are the tools of srcs whose name a tools entry, or an
// earlier openapi_tools entry, already has: the registry would refuse
// them, so they are the config's problem, placed at the entry.
func nameClashes(cfg *config.Config, srcs []openapi.Source) []config.Problem {
	taken := map[string]string{}
	for i, t := range cfg.Tools {
		taken[t.Name] = fmt.Sprintf("tools[%d]", i)
	}
	var out []config.Problem
	for _, s := range srcs {
		i := slices.IndexFunc(cfg.OpenAPITools, func(e config.OpenAPITools) bool { return e.Name == s.Name })
		here := fmt.Sprintf("openapi_tools[%d]", i)
		for _, r := range s.Tools {
			if other, dup := taken[r.Tool.Name]; dup {
				out = append(out, cfg.ProblemAt(here+".spec", fmt.Sprintf("the tool %s is named as %s's (use prefix, operations or another name)", r.Tool.Name, other)))
				continue
			}
			taken[r.Tool.Name] = here
		}
	}
	return out
}

// unknownOverrides are the overrides keys of openapi_tools entries that
// name none of the entry's tools: a typo there would leave a tool meant
// to wait for approval running without it, so it is refused.
func unknownOverrides(cfg *config.Config, srcs []openapi.Source) []config.Problem {
	var out []config.Problem
	for _, s := range srcs {
		i := slices.IndexFunc(cfg.OpenAPITools, func(e config.OpenAPITools) bool { return e.Name == s.Name })
		names := make([]string, 0, len(s.Tools))
		for _, r := range s.Tools {
			names = append(names, r.Tool.Name)
		}
		keys := make([]string, 0, len(cfg.OpenAPITools[i].Overrides))
		for k := range cfg.OpenAPITools[i].Overrides {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if slices.Contains(names, k) {
				continue
			}
			msg := "no tool of " + s.Location + " has this name"
			if c := config.Closest(k, names); c != "" {
				msg += " (did you mean " + c + "?)"
			} else if len(names) > 0 {
				msg += " (names are the prefix and the operationId, e.g. " + names[0] + ")"
			}
			out = append(out, cfg.ProblemAt(fmt.Sprintf("openapi_tools[%d].overrides.%s", i, k), msg))
		}
	}
	return out
}
