#pragma once
// Command-line options of one qkvlab-cli command: "--name value", "--flag" and bare positional
// values, each declared by the command. Anything undeclared, repeated or missing its value is a
// usage error.
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace qkv::cli {

struct OptionSpec {
    std::string name;       // without the leading "--"
    std::string valueName;  // empty for a flag
    std::string help;
    bool positional = false;  // given bare, in order ("download ID"), not as --name VALUE
    bool repeated = false;    // a positional that takes every further bare value ("survey ID...")
};

class UsageError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

class Arguments {
  public:
    Arguments(const std::vector<std::string>& tokens, const std::vector<OptionSpec>& specs);

    bool has(const std::string& name) const { return m_values.count(name) > 0; }
    bool flag(const std::string& name) const { return has(name); }
    std::optional<std::string> value(const std::string& name) const;
    std::string required(const std::string& name) const;
    std::string required(const OptionSpec& positional) const;
    std::optional<int> integer(const std::string& name, int min, int max) const;
    // Every value of a repeated positional, in order; empty when none was given.
    std::vector<std::string> values(const std::string& name) const;

  private:
    std::map<std::string, std::string> m_values;
    std::map<std::string, std::vector<std::string>> m_repeated;
};

std::string formatOptions(const std::vector<OptionSpec>& specs);

}  // namespace qkv::cli
