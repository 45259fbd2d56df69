// The field-validation level a save is sent with (fieldValidation=Strict|Warn|Ignore).
import type { FieldValidation } from './requests.js';

export function FieldValidationSelect({ value, onChange }: { value: FieldValidation; onChange(v: FieldValidation): void }) {
  return (
    <label className="check" title="How the server treats fields the schema does not know">
      field validation
      <select data-testid="field-validation" value={value} onChange={(e) => onChange(e.target.value as FieldValidation)}>
        <option value="Strict">Strict (reject)</option>
        <option value="Warn">Warn</option>
        <option value="Ignore">Ignore (drop)</option>
      </select>
    </label>
  );
}
