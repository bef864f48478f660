import { ApiError } from '../api/http';
import { describeError } from './ErrorMessage';

/** The error of the field the API named in `param`, shown inside that field's label. */
export function FieldError(props: { error: unknown; field: string }) {
  if (!(props.error instanceof ApiError) || props.error.body?.param !== props.field) return null;
  return (
    <span className="error" role="alert">
      {describeError(props.error)}
    </span>
  );
}

/** An error no field of the form shows (none named, or one the form does not have). */
export function FormError(props: { error: unknown; fields: readonly string[] }) {
  const { error } = props;
  if (!error) return null;
  if (error instanceof ApiError && props.fields.includes(error.body?.param ?? '')) return null;
  return (
    <p className="error" role="alert">
      {describeError(error)}
    </p>
  );
}
